import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import { CDSHooksService, type CDSClient, type ClientAuthOptions } from '../../src/cds/index.js';
import { ReplayCache } from '../../src/cds/replay-cache.js';
import { ClientAuth } from '../../src/cds/client-auth.js';
import { encodeBase64url } from '../../src/lib/jwt/base64url.js';
import { makeKey, rawToken, startCdsClient, type CdsClient } from '../support/cds-client.js';
import { recordingDispatcher } from '../support/recording-dispatcher.js';
import { serve } from '../support/serve.js';
import { post } from './post-json.js';

const UNAUTHORIZED = { error: { code: 'ERR_UNAUTHORIZED', message: 'the CDS client could not be authenticated' } };
const call = () => ({ hook: 'patient-view', hookInstance: randomUUID(), context: { userId: 'Practitioner/1', patientId: '123' } });

async function setup(t: TestContext, auth: (client: CdsClient) => ClientAuthOptions = (c) => ({ issuers: [{ issuer: c.issuer, jwksUrls: [c.jwksUrl] }] })) {
  const client = await startCdsClient(t);
  const seen: (CDSClient | undefined)[] = [];
  const cds = new CDSHooksService({ dispatcher: recordingDispatcher(), auth: auth(client) });
  cds.hook('patient-view', { id: 'svc', description: 'x' }, (_req, ctx) => {
    seen.push(ctx.client);
    return { cards: [] };
  });
  cds.hook('patient-view', { id: 'open', description: 'x', auth: false }, () => ({ cards: [] }));
  const served = await serve(t, cds);
  const url = `${served.baseUrl}/cds-services/svc`;
  const send = (token: string | undefined, to = url) => post(to, call(), token === undefined ? {} : { authorization: `Bearer ${token}` });
  return { client, seen, served, url, send };
}

async function assertRejected(response: Promise<{ status: number; headers: Headers; body: unknown }>): Promise<void> {
  const r = await response;
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, UNAUTHORIZED);
  assert.equal(r.headers.get('www-authenticate'), 'Bearer');
}

test('accepts an ES384 token with kid and jku, and hands the verified client to the handler', async (t) => {
  const { client, seen, send, url } = await setup(t);
  const r = await send(client.token(url, { tenant: 't1' }));
  assert.equal(r.status, 200);
  assert.deepEqual(seen, [{ issuer: client.issuer, subject: 'ehr-client', tenant: 't1' }]);
});

test('every failure is the same 401 and the reason only goes to the log', async (t) => {
  const { client, send, url, served } = await setup(t);
  const replayed = client.token(url);
  assert.equal((await send(replayed)).status, 200);
  const now = Math.floor(Date.now() / 1000);
  const hmac = (() => {
    const head = encodeBase64url(JSON.stringify({ alg: 'HS256', kid: client.key.kid }));
    const body = encodeBase64url(JSON.stringify({ iss: client.issuer, aud: url, exp: now + 60, iat: now, jti: randomUUID() }));
    return `${head}.${body}.${encodeBase64url(createHmac('sha256', 'secret').update(`${head}.${body}`).digest())}`;
  })();
  const cases: Array<[string | undefined, RegExp]> = [
    [replayed, /jti replayed/],
    [client.token(`${url}/other`), /aud mismatch/],
    [client.token(`${served.baseUrl}/cds-services/open`), /aud mismatch/],
    [client.token(url, { exp: now - 3600, iat: now - 3700 }), /token expired/],
    [client.token(url, { exp: now + 3600 }), /exp too far/],
    [rawToken({ alg: 'none', kid: client.key.kid }, { iss: client.issuer, aud: url, exp: now + 60, iat: now, jti: randomUUID() }), /alg not allowed/],
    [hmac, /alg not allowed/],
    [client.token(url, { iss: 'https://stranger.example' }), /unknown issuer/],
    [client.token(url, {}, { kid: undefined }), /kid missing/],
    [client.token(url, {}, { jku: 'http://127.0.0.1:1/evil.json' }), /jku not allowed/],
    [client.token(url, {}, { kid: 'not-published' }), /unknown key/],
    [client.token(url, { jti: undefined }), /jti missing/],
    [client.token(url, {}, {}, makeKey('ec', client.key.kid)), /signature invalid/],
    [undefined, /no bearer token/],
    ['not.a.jwt', /malformed/],
  ];
  for (const [token, reason] of cases) {
    await assertRejected(send(token));
    const last = served.logs.at(-1);
    assert.equal(last?.level, 'warn');
    assert.match(String(last?.fields?.reason), reason);
  }
  await assertRejected(post(url, call(), { authorization: 'Basic dXNlcjpwYXNz' }));
  assert.equal((await send(undefined, `${served.baseUrl}/cds-services/open`)).status, 200);
  assert.equal((await fetch(`${served.baseUrl}/cds-services`)).status, 200);
});

test('the feedback route checks the token against its own URL', async (t) => {
  const { client, url } = await setup(t);
  const feedback = { feedback: [{ card: 'c', outcome: 'overridden', outcomeTimestamp: '2026-11-22T10:00:00Z' }] };
  const ok = await post(`${url}/feedback`, feedback, { authorization: `Bearer ${client.token(`${url}/feedback`)}` });
  assert.equal(ok.status, 200);
  await assertRejected(post(`${url}/feedback`, feedback, { authorization: `Bearer ${client.token(url)}` }));
});

test('RS384 is accepted by default, RS256 only when listed', async (t) => {
  const rsa = makeKey('rsa');
  const { client, send, url } = await setup(t, (c) => ({ issuers: [{ issuer: c.issuer, jwksUrls: [c.jwksUrl] }], algorithms: ['ES384', 'RS384'] }));
  client.published.push(rsa);
  assert.equal((await send(client.token(url, {}, {}, rsa))).status, 200);
  await assertRejected(send(client.token(url, {}, {}, { ...rsa, alg: 'RS256' })));

  const other = await setup(t, (c) => ({ issuers: [{ issuer: c.issuer, jwksUrls: [c.jwksUrl] }], algorithms: ['RS256'] }));
  other.client.published.push(rsa);
  assert.equal((await other.send(other.client.token(other.url, {}, {}, { ...rsa, alg: 'RS256' }))).status, 200);
  await assertRejected(other.send(other.client.token(other.url)));
});

test('a static JWKS and token without jku work; without jku the listed URLs are tried', async (t) => {
  const staticKey = makeKey('ec');
  const { client, send, url } = await setup(t, (c) => ({ issuers: [{ issuer: c.issuer, jwks: { keys: [staticKey.jwk] }, jwksUrls: [c.jwksUrl] }] }));
  assert.equal((await send(client.token(url, {}, { jku: undefined }, staticKey))).status, 200);
  assert.equal(client.fetches, 0);
  assert.equal((await send(client.token(url, {}, { jku: undefined }))).status, 200);
  assert.equal(client.fetches, 1);
});

test('the JWKS is cached, refetched for an unknown kid, but not within the cool-down', async (t) => {
  const eager = await setup(t, (c) => ({ issuers: [{ issuer: c.issuer, jwksUrls: [c.jwksUrl] }], jwksCooldownSeconds: 0 }));
  assert.equal((await eager.send(eager.client.token(eager.url))).status, 200);
  assert.equal((await eager.send(eager.client.token(eager.url))).status, 200);
  assert.equal(eager.client.fetches, 1);
  const rotated = makeKey('ec');
  eager.client.published = [rotated];
  eager.client.key = rotated;
  assert.equal((await eager.send(eager.client.token(eager.url))).status, 200);
  assert.equal(eager.client.fetches, 2);

  const calm = await setup(t, (c) => ({ issuers: [{ issuer: c.issuer, jwksUrls: [c.jwksUrl] }], jwksCooldownSeconds: 3600 }));
  assert.equal((await calm.send(calm.client.token(calm.url))).status, 200);
  const next = makeKey('ec');
  calm.client.published = [next];
  calm.client.key = next;
  await assertRejected(calm.send(calm.client.token(calm.url)));
  await assertRejected(calm.send(calm.client.token(calm.url)));
  assert.equal(calm.client.fetches, 1);
});

test('a JWKS that cannot be fetched or read fails closed', async (t) => {
  const { client, send, url, served } = await setup(t, (c) => ({ issuers: [{ issuer: c.issuer, jwksUrls: [c.jwksUrl, 'http://127.0.0.1:1/jwks'] }] }));
  await assertRejected(send(client.token(url, {}, { jku: 'http://127.0.0.1:1/jwks' })));
  assert.match(String(served.logs.at(-1)?.fields?.reason), /JWKS fetch failed/);
});

test('auth options are validated at construction', () => {
  const misuse: Array<[unknown, RegExp]> = [
    [null, /auth must be an object/],
    [{ issuers: [] }, /auth\.issuers/],
    [{ issuers: [{}] }, /auth\.issuers\[0\]\.issuer/],
    [{ issuers: [{ issuer: 'a' }] }, /needs jwks or jwksUrls/],
    [{ issuers: [{ issuer: 'a', jwks: {} }] }, /auth\.issuers\[0\]\.jwks/],
    [{ issuers: [{ issuer: 'a', jwksUrls: ['ftp://x'] }] }, /jwksUrls/],
    [{ issuers: [{ issuer: 'a', jwksUrls: ['https://x'] }], algorithms: ['HS256'] }, /auth\.algorithms/],
    [{ issuers: [{ issuer: 'a', jwksUrls: ['https://x'] }], algorithms: [] }, /auth\.algorithms/],
    [{ issuers: [{ issuer: 'a', jwksUrls: ['https://x'] }], clockToleranceSeconds: -1 }, /auth\.clockToleranceSeconds/],
    [{ issuers: [{ issuer: 'a', jwksUrls: ['https://x'] }], replayCacheSize: 0 }, /auth\.replayCacheSize/],
  ];
  for (const [options, message] of misuse) {
    assert.throws(() => new ClientAuth(options as ClientAuthOptions), (err: Error) => (err instanceof TypeError || err instanceof RangeError) && message.test(err.message));
  }
  assert.throws(() => new CDSHooksService({ auth: { issuers: [] } }), TypeError);
});

test('the replay cache prunes expired ids to make room and never forgets a live one', () => {
  const cache = new ReplayCache(3);
  assert.equal(cache.remember('a', 100, 50), 'accepted');
  assert.equal(cache.remember('a', 100, 60), 'replayed');
  assert.equal(cache.remember('b', 55, 50), 'accepted');
  assert.equal(cache.remember('c', 200, 50), 'accepted');
  assert.equal(cache.remember('d', 200, 60), 'accepted', 'b expired and was pruned to make room');
  assert.equal(cache.size, 3);
  assert.equal(cache.remember('b', 300, 60), 'full', 'b expired and may come again, but only when there is room');
  assert.equal(cache.remember('e', 200, 60), 'full', 'nothing expired: the new id is refused, no live id is evicted');
  assert.equal(cache.remember('a', 100, 60), 'replayed', 'a is still remembered');
  assert.equal(cache.remember('e', 200, 100), 'full', 'a expires at 100, which is still live at 100');
  assert.equal(cache.remember('e', 200, 100.5), 'accepted', 'once a expired, e fits');
  assert.equal(cache.remember('a', 100, 100.5), 'full', 'a was forgotten, but the cache is full again');
  assert.equal(cache.remember('e', 200, 150), 'replayed');
  assert.equal(cache.remember('x', 250, 201), 'accepted', 'c, d and e expired together');
  assert.equal(cache.size, 1);
  cache.clear();
  assert.equal(cache.size, 0);
  assert.equal(cache.remember('x', 250, 201), 'accepted', 'clear() forgets every id');
});

test('the replay cache keeps the earliest expiry on top whatever the insertion order', () => {
  const cache = new ReplayCache(1000);
  const expiries = Array.from({ length: 200 }, (_, i) => 1000 + ((i * 7919) % 200));
  expiries.forEach((exp, i) => assert.equal(cache.remember(`id${i}`, exp, 0), 'accepted'));
  for (let now = 990; now <= 1210; now += 10) {
    // A probe that is already expired is pruned by the next call: size is the live ids plus the probe.
    assert.equal(cache.remember('probe', now - 1, now), 'accepted');
    assert.equal(cache.size - 1, expiries.filter((e) => e >= now).length, `at ${now}`);
  }
});

test('a full replay cache of live tokens refuses a new token with the same 401, reason "replay cache full"', async (t) => {
  const { client, send, url, served, seen } = await setup(t, (c) => ({ issuers: [{ issuer: c.issuer, jwksUrls: [c.jwksUrl] }], replayCacheSize: 2 }));
  assert.equal((await send(client.token(url))).status, 200);
  assert.equal((await send(client.token(url))).status, 200);
  await assertRejected(send(client.token(url)));
  assert.equal(served.logs.at(-1)?.level, 'warn');
  assert.equal(served.logs.at(-1)?.fields?.reason, 'replay cache full');
  assert.equal(seen.length, 2, 'the handler did not run for the refused token');
});
