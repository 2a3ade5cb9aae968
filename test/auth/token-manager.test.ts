import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import diagnostics_channel from 'node:diagnostics_channel';
import { test } from 'node:test';
import { parseConnectionString } from '../../src/auth/index.js';
import { formEncode } from '../../src/auth/fetch-token.js';
import { refreshMargin, TokenManager } from '../../src/auth/token-manager.js';
import type { ClientSecretAuth, JWTAssertionAuth } from '../../src/auth/source-config.js';
import type { Send } from '../../src/auth/fetch-token.js';
import { decodeJWT } from '../../src/lib/jwt/verify-jwt.js';
import { jwkThumbprint } from '../../src/lib/jwt/keys.js';
import { request } from '../../src/http/request.js';
import { startServer } from '../support/test-server.js';
import { writeTemp, writeTestKeys } from '../support/keys.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

const send: Send = (url, options) => request(url, options);

function authOf(cs: string): ClientSecretAuth | JWTAssertionAuth {
  const auth = parseConnectionString(cs).auth;
  assert.ok(auth);
  return auth;
}

test('JWT assertion flow against the sandbox with RSA and EC keys in every key format', async (t) => {
  const keys = writeTestKeys(t);
  const sandbox = await testSandbox(t, { clients: keys.map((k, i) => ({ clientId: `app-${i}`, publicKey: k.publicKey })) });
  for (const [i, key] of keys.entries()) {
    const tokens = new TokenManager(authOf(sandbox.connectionString(`app-${i}`, { keyPath: key.path })), { send, timeoutMs: 10_000 });
    const token = await tokens.token();
    assert.ok(token.length > 10, key.label);
    assert.equal(sandbox.stats.lastAuthMethod, 'private_key_jwt', key.label);
    assert.equal(sandbox.stats.lastClientId, `app-${i}`, key.label);
  }
  assert.equal(sandbox.stats.tokensIssued, keys.length);
});

test('the assertion has the SMART header and claims: alg from the key, kid, jku, iss = sub, aud, jti, exp ≤ 5 min', async (t) => {
  const keys = writeTestKeys(t);
  const forms: URLSearchParams[] = [];
  const srv = await startServer(t, (_req, res, body) => {
    forms.push(new URLSearchParams(body));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: `tok-${forms.length}`, token_type: 'Bearer', expires_in: 300 }));
  });
  const tokenUrl = `${srv.url}/oauth/token`;
  for (const key of keys) {
    const withKid = key.label === 'EC SEC1' ? '&key_id=my-key&jku=https://app.example.org/jwks.json' : '';
    const cs = `fhir://127.0.0.1:1/r4/?client_id=backend&client_secret_path=${encodeURIComponent(key.path)}&use_jwt_assertion=true&token_url=${encodeURIComponent(tokenUrl)}${withKid}&audience=https://fhir.example.org`;
    await new TokenManager(authOf(cs), { send, timeoutMs: 10_000 }).token();
    const form = forms.at(-1);
    assert.ok(form);
    assert.equal(form.get('grant_type'), 'client_credentials');
    assert.equal(form.get('client_assertion_type'), 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    assert.equal(form.get('scope'), 'system/*.read system/*.write');
    assert.equal(form.get('audience'), 'https://fhir.example.org');
    assert.equal(form.get('client_secret'), null);
    const { header, payload } = decodeJWT(form.get('client_assertion') ?? '');
    assert.equal(header.alg, key.alg, key.label);
    assert.equal(header.typ, 'JWT');
    if (withKid) {
      assert.equal(header.kid, 'my-key');
      assert.equal(header.jku, 'https://app.example.org/jwks.json');
    } else {
      assert.equal(header.kid, jwkThumbprint(key.publicKey.export({ format: 'jwk' })));
      assert.equal(header.jku, undefined);
    }
    assert.equal(payload.iss, 'backend');
    assert.equal(payload.sub, 'backend');
    assert.equal(payload.aud, tokenUrl);
    assert.match(String(payload.jti), /^[0-9a-f-]{36}$/);
    assert.ok(typeof payload.exp === 'number' && typeof payload.iat === 'number');
    assert.ok(payload.exp - payload.iat > 0 && payload.exp - payload.iat <= 300);
  }
  const jtis = forms.map((f) => decodeJWT(f.get('client_assertion') ?? '').payload.jti);
  assert.equal(new Set(jtis).size, jtis.length);
});

test('client_secret_basic encodes a secret with + : % per RFC 6749 §2.3.1, and the sandbox accepts it', async (t) => {
  const secret = 'a+b:c%d e';
  const seen: string[] = [];
  const srv = await startServer(t, (req, res, body) => {
    seen.push(req.headers.authorization ?? '', body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"access_token":"t","token_type":"bearer","expires_in":60}');
  });
  const cs = `fhir://127.0.0.1:1/?client_id=my%3Aapp&client_secret=${encodeURIComponent(secret)}&token_url=${encodeURIComponent(srv.url)}`;
  await new TokenManager(authOf(cs), { send, timeoutMs: 10_000 }).token();
  assert.equal(formEncode(secret), 'a%2Bb%3Ac%25d+e');
  const decoded = Buffer.from((seen[0] ?? '').replace(/^Basic /, ''), 'base64').toString();
  assert.equal(decoded, 'my%3Aapp:a%2Bb%3Ac%25d+e');
  assert.ok(!(seen[1] ?? '').includes('client_secret'));

  const sandbox = await testSandbox(t, { clients: [{ clientId: 'my:app', clientSecret: secret }] });
  const tokens = new TokenManager(authOf(`${sandbox.connectionString('my:app')}&scope=system/Patient.rs&audience=aud-1`), { send, timeoutMs: 10_000 });
  assert.ok(await tokens.token());
  assert.equal(sandbox.stats.lastAuthMethod, 'client_secret_basic');
  assert.equal(sandbox.stats.lastScope, 'system/Patient.rs');
  assert.equal(sandbox.stats.lastAudience, 'aud-1');
});

test('client_secret_post puts the id and secret in the form', async (t) => {
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'poster', clientSecret: 'p+ss' }] });
  const tokens = new TokenManager(authOf(`${sandbox.connectionString('poster')}&auth_method=client_secret_post`), { send, timeoutMs: 10_000 });
  assert.ok(await tokens.token());
  assert.equal(sandbox.stats.lastAuthMethod, 'client_secret_post');
});

test('caches until expires_in minus the margin, one request for many callers, invalidate drops only that token', async (t) => {
  let issued = 0;
  let release: (() => void) | undefined;
  const srv = await startServer(t, (_req, res) => {
    const answer = (): void => {
      issued++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: `tok-${issued}`, token_type: 'Bearer', expires_in: 300 }));
    };
    if (issued === 0) release = answer;
    else answer();
  });
  let now = 1_000_000;
  const cs = `fhir://127.0.0.1:1/?client_id=a&client_secret=b&token_url=${encodeURIComponent(srv.url)}`;
  const tokens = new TokenManager(authOf(cs), { send, timeoutMs: 10_000, now: () => now });
  const waiting = Array.from({ length: 100 }, () => tokens.token());
  const controller = new AbortController();
  const impatient = tokens.token(controller.signal);
  // Bounded: should the first request never reach the server, fail here by name rather than wait for the runner's timeout.
  const deadline = Date.now() + 60_000;
  await new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (release) resolve();
      else if (Date.now() > deadline) reject(new Error('the token server did not receive the first token request within 60 s'));
      else setTimeout(check, 5);
    };
    check();
  });
  controller.abort();
  await assert.rejects(impatient, { code: 'ERR_ABORTED' });
  release?.();
  assert.deepEqual(new Set(await Promise.all(waiting)), new Set(['tok-1']));
  assert.equal(srv.seen.length, 1);
  now += (300 - refreshMargin(300) - 1) * 1000;
  assert.equal(await tokens.token(), 'tok-1');
  now += 2000;
  assert.equal(await tokens.token(), 'tok-2');
  tokens.invalidate('tok-1');
  assert.equal(await tokens.token(), 'tok-2');
  tokens.invalidate('tok-2');
  assert.equal(await tokens.token(), 'tok-3');
  assert.equal(srv.seen.length, 3);
  assert.equal(refreshMargin(300), 30);
  assert.equal(refreshMargin(3600), 60);
});

test('a token without expires_in is kept until invalidated', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end(JSON.stringify({ access_token: `t${Math.random()}` })));
  const tokens = new TokenManager(authOf(`fhir://127.0.0.1:1/?client_id=a&client_secret=b&token_url=${encodeURIComponent(srv.url)}`), {
    send,
    timeoutMs: 10_000,
    now: () => Number.MAX_SAFE_INTEGER,
  });
  const first = await tokens.token();
  assert.equal(await tokens.token(), first);
  tokens.invalidate(first);
  assert.notEqual(await tokens.token(), first);
});

test('token endpoint failures are ERR_AUTH_TOKEN with status and OAuth error, never the secret', async (t) => {
  const secret = 'NeverShowThis+1';
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'app', clientSecret: 'other' }] });
  const events: unknown[] = [];
  const onToken = (m: unknown): void => void events.push(m);
  diagnostics_channel.subscribe('fhirgate:auth:token', onToken);
  t.after(() => diagnostics_channel.unsubscribe('fhirgate:auth:token', onToken));
  const cs = `fhir://127.0.0.1:1/?client_id=app&client_secret=${encodeURIComponent(secret)}&token_url=${encodeURIComponent(sandbox.tokenUrl)}`;
  const err = await new TokenManager(authOf(cs), { send, timeoutMs: 10_000 })
    .token()
    .then(() => assert.fail('expected a rejection'), (e: unknown) => e as Error & Record<string, unknown>);
  assert.equal(err.code, 'ERR_AUTH_TOKEN');
  assert.equal(err.status, 401);
  assert.equal(err.oauthError, 'invalid_client');
  assert.match(err.message, /token request to http:\/\/127\.0\.0\.1:\d+\/oauth2\/token failed: 401 invalid_client/);
  const serialized = JSON.stringify({ ...err, message: err.message, stack: err.stack }) + JSON.stringify(events);
  assert.ok(!serialized.includes(secret) && !serialized.includes(encodeURIComponent(secret)));
  assert.ok(events.length >= 1);

  const keys = writeTestKeys(t);
  const key = keys[0];
  assert.ok(key);
  const jwtCs = `fhir://127.0.0.1:1/?client_id=app&client_secret_path=${encodeURIComponent(key.path)}&use_jwt_assertion=true&token_url=${encodeURIComponent(sandbox.tokenUrl)}`;
  const jwtErr = await new TokenManager(authOf(jwtCs), { send, timeoutMs: 10_000 })
    .token()
    .then(() => assert.fail('expected a rejection'), (e: unknown) => e as Error);
  assert.equal((jwtErr as { code?: string }).code, 'ERR_AUTH_TOKEN');
  assert.ok(!JSON.stringify({ ...jwtErr, m: jwtErr.message }).includes('eyJ'));
});

test('malformed token answers and unreachable endpoints are ERR_AUTH_TOKEN', async (t) => {
  const answers: [number, string][] = [
    [500, 'oops'],
    [200, '{"token_type":"Bearer"}'],
    [200, '{"access_token":"x","token_type":"mac"}'],
    [200, '[1]'],
    [200, '{"access_token":"a b\\r\\nX-Injected: 1","token_type":"Bearer"}'],
    [400, '{"error":"invalid_scope"}'],
  ];
  const srv = await startServer(t, (_req, res) => {
    const [status, body] = answers.shift() ?? [500, ''];
    res.writeHead(status);
    res.end(body);
  });
  const tokens = new TokenManager(authOf(`fhir://127.0.0.1:1/?client_id=a&client_secret=b&token_url=${encodeURIComponent(srv.url)}`), { send, timeoutMs: 10_000 });
  await assert.rejects(tokens.token(), { code: 'ERR_AUTH_TOKEN', status: 500, message: /failed: 500$/ });
  await assert.rejects(tokens.token(), { code: 'ERR_AUTH_TOKEN', message: /no bearer access_token/ });
  await assert.rejects(tokens.token(), { code: 'ERR_AUTH_TOKEN', message: /no bearer access_token/ });
  await assert.rejects(tokens.token(), { code: 'ERR_AUTH_TOKEN', message: /no bearer access_token/ });
  await assert.rejects(tokens.token(), { code: 'ERR_AUTH_TOKEN', message: /no bearer access_token/ });
  await assert.rejects(tokens.token(), { code: 'ERR_AUTH_TOKEN', status: 400, oauthError: 'invalid_scope' });
  const down = new TokenManager(authOf('fhir://127.0.0.1:1/?client_id=a&client_secret=b&token_url=http://127.0.0.1:1/t'), { send, timeoutMs: 10_000 });
  const err = await down.token().then(() => assert.fail('expected a rejection'), (e: unknown) => e as Error);
  assert.equal((err as { code?: string }).code, 'ERR_AUTH_TOKEN');
  assert.equal((err.cause as { code?: string }).code, 'ERR_NETWORK');
});

test('key problems are ERR_AUTH_KEY when the manager is built', async (t) => {
  const ec256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const files = {
    public: writeTemp(t, 'pub.pem', rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string),
    p256: writeTemp(t, 'p256.pem', ec256.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
    mismatch: writeTemp(t, 'rsa.json', JSON.stringify({ ...rsa.privateKey.export({ format: 'jwk' }), alg: 'RS256' })),
    garbage: writeTemp(t, 'garbage.pem', 'not a key'),
    missing: '/nonexistent/fhirgate/key.pem',
  };
  for (const [what, path] of Object.entries(files)) {
    const cs = `fhir://127.0.0.1:1/?client_id=a&client_secret_path=${encodeURIComponent(path)}&use_jwt_assertion=true&token_url=http://127.0.0.1:1/t`;
    assert.throws(() => new TokenManager(authOf(cs), { send, timeoutMs: 1000 }), { code: 'ERR_AUTH_KEY' }, what);
  }
});

test('current() gives the cached token while it is fresh, without a request, and nothing before or after', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end(JSON.stringify({ access_token: `tok-${Math.random()}`, expires_in: 300 })));
  let now = 5_000_000;
  const tokens = new TokenManager(authOf(`fhir://127.0.0.1:1/?client_id=a&client_secret=b&token_url=${encodeURIComponent(srv.url)}`), {
    send,
    timeoutMs: 10_000,
    now: () => now,
  });
  assert.equal(tokens.current(), undefined);
  const first = await tokens.token();
  assert.equal(tokens.current(), first);
  assert.equal(srv.seen.length, 1);
  now += 300_000;
  assert.equal(tokens.current(), undefined);
  tokens.invalidate(first);
  assert.equal(tokens.current(), undefined);
});
