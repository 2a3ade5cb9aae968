import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConnectionString } from '../../src/auth/index.js';
import { fetchToken } from '../../src/auth/fetch-token.js';
import type { ClientSecretAuth } from '../../src/auth/source-config.js';
import type { Send } from '../../src/auth/fetch-token.js';
import { request } from '../../src/http/request.js';
import { startServer } from '../support/test-server.js';

const send: Send = (url, options) => request(url, options);

/** A token endpoint that answers every request with `answer` (JSON) and records what it received. */
async function endpoint(t: import('node:test').TestContext, answer: unknown, status = 200) {
  const srv = await startServer(t, (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
  const auth = parseConnectionString(`fhir://127.0.0.1/fhir?client_id=a%20b%2Bc&client_secret=s%3Ae%C3%A9&token_url=${encodeURIComponent(`${srv.url}/token`)}`).auth as ClientSecretAuth;
  return { srv, auth };
}

test('expires_in: a number or a numeric string counts; true, [], "" or words do not', async (t) => {
  const cases: [unknown, number | undefined][] = [
    [3600, 3600], ['3600', 3600], [' 60 ', 60], ['1.5', 1.5],
    [true, undefined], [[300], undefined], ['', undefined], ['soon', undefined], [0, undefined], [-5, undefined], [undefined, undefined],
  ];
  for (const [given, expected] of cases) {
    const { auth } = await endpoint(t, { access_token: 'tok', token_type: 'Bearer', ...(given === undefined ? {} : { expires_in: given }) });
    const answer = await fetchToken({ auth }, send, { timeoutMs: 10_000, nowMs: Date.now() });
    assert.equal(answer.expiresIn, expected, `expires_in ${JSON.stringify(given)}`);
  }
});

test('token_type: Bearer in any case, or absent, is accepted; another type or a non-string is refused', async (t) => {
  for (const tokenType of ['Bearer', 'bearer', 'BEARER', undefined]) {
    const { auth } = await endpoint(t, { access_token: 'tok', ...(tokenType === undefined ? {} : { token_type: tokenType }) });
    assert.equal((await fetchToken({ auth }, send, { timeoutMs: 10_000, nowMs: Date.now() })).accessToken, 'tok');
  }
  for (const tokenType of ['mac', 'DPoP', 1, null, ['Bearer']]) {
    const { auth } = await endpoint(t, { access_token: 'tok', token_type: tokenType });
    await assert.rejects(fetchToken({ auth }, send, { timeoutMs: 10_000, nowMs: Date.now() }), { code: 'ERR_AUTH_TOKEN', message: /no bearer access_token/ });
  }
});

test('client_secret_basic form-encodes id and secret before base64 (RFC 6749 §2.3.1)', async (t) => {
  const { srv, auth } = await endpoint(t, { access_token: 'tok', token_type: 'Bearer' });
  await fetchToken({ auth }, send, { timeoutMs: 10_000, nowMs: Date.now() });
  const header = srv.seen[0]?.headers.authorization ?? '';
  assert.equal(Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8'), 'a+b%2Bc:s%3Ae%C3%A9');
  assert.equal(srv.seen[0]?.headers['content-type'], 'application/x-www-form-urlencoded');
  assert.equal(new URLSearchParams(srv.seen[0]?.body).get('grant_type'), 'client_credentials');
});

test('an OAuth error answer becomes oauthError and oauthErrorDescription, and the message holds no secret', async (t) => {
  const { auth } = await endpoint(t, { error: 'invalid_client', error_description: 'unknown client' }, 401);
  const err = await fetchToken({ auth }, send, { timeoutMs: 10_000, nowMs: Date.now() }).then(() => assert.fail('resolved'), (e: unknown) => e);
  assert.deepEqual({ ...(err as object) }, { code: 'ERR_AUTH_TOKEN', status: 401, oauthError: 'invalid_client', oauthErrorDescription: 'unknown client' });
  assert.doesNotMatch((err as Error).message, /s:e|s%3Ae/);
});
