import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { CDSHooksService } from '../../src/cds/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { redisStore } from '../../src/redis/index.js';
import { writeTestKeys } from '../support/keys.js';
import { startCdsClient } from '../support/cds-client.js';
import { callCds, CDS_AUDIENCE, cdsReplica, connectRedis, type RedisClient } from './replicas.js';
import { startRedis } from '../support/bus-servers.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

async function connect(t: TestContext): Promise<RedisClient | undefined> {
  const url = await startRedis(t);
  return url === undefined ? undefined : connectRedis(t, url, { reconnect: false });
}

/** Every key and value in the Redis database. */
async function dump(client: RedisClient): Promise<Array<[string, string]>> {
  const keys = (await client.keys('*')).map(String);
  return Promise.all(keys.map(async (k): Promise<[string, string]> => [k, String(await client.get(k))]));
}

test('redisStore: get, set with a TTL in ms, and an atomic setIfAbsent', async (t) => {
  const client = await connect(t);
  if (client === undefined) return;
  const store = redisStore(client, { keyPrefix: 'app:' });
  assert.equal(await store.get('missing'), undefined);
  await store.set('k', 'v1', 60_000);
  assert.equal(await store.get('k'), 'v1');
  assert.equal(await client.get('app:k'), 'v1');
  const pttl = await client.pTTL('app:k');
  assert.ok(pttl > 0 && pttl <= 60_000, `PTTL ${pttl}`);
  const racers = await Promise.all(Array.from({ length: 20 }, (_, i) => store.setIfAbsent('once', `r${i}`, 60_000)));
  assert.equal(racers.filter(Boolean).length, 1);
  assert.equal(await store.get('once'), `r${racers.indexOf(true)}`);
});

test('redisStore: a value is gone once its TTL has passed, and the key can be taken again', async (t) => {
  const client = await connect(t);
  if (client === undefined) return;
  const store = redisStore(client);
  // 1 s: long enough that the second call comes before expiry on a loaded machine (30 ms was not).
  assert.equal(await store.setIfAbsent('short', 'a', 1000), true);
  assert.equal(await store.setIfAbsent('short', 'b', 1000), false);
  while ((await store.get('short')) !== undefined) await sleep(10);
  assert.equal(await store.setIfAbsent('short', 'c', 60_000), true);
  assert.equal(await store.get('short'), 'c');
});

test('redisStore: bad arguments are TypeError / RangeError naming what is wrong', async (t) => {
  assert.throws(() => redisStore(null as never), { name: 'TypeError', message: /"client"/ });
  assert.throws(() => redisStore({} as never), { name: 'TypeError', message: /sendCommand/ });
  const fake = { sendCommand: async () => 'OK' };
  assert.throws(() => redisStore(fake, { keyPrefix: 1 as never }), { name: 'TypeError', message: /keyPrefix/ });
  await assert.rejects(redisStore(fake).set('k', 'v', 0), { name: 'RangeError', message: /ttlMs/ });
  await assert.rejects(redisStore(fake).setIfAbsent('k', 'v', 1.5), { name: 'RangeError', message: /ttlMs/ });
  // A real node-redis client, as the old README made it: no 'error' listener, so an outage would end the process.
  assert.throws(() => redisStore(createClient({ url: 'redis://127.0.0.1:1' })), { name: 'TypeError', message: /'error' listener/ });
  const listening = { sendCommand: async () => 'OK', listenerCount: () => 1 };
  assert.throws(() => redisStore({ ...listening, listenerCount: () => 0 }), { name: 'TypeError', message: /'error' listener/ });
  assert.throws(() => redisStore(listening, { commandTimeoutMs: 0 }), { name: 'RangeError', message: /options\.commandTimeoutMs / });
  assert.throws(() => redisStore(listening, { commandTimeoutMs: '5' as never }), { name: 'TypeError', message: /options\.commandTimeoutMs / });
  assert.throws(() => new AsyncFHIRGateway({ tokenStore: {} as never }), { name: 'TypeError', message: /options\.tokenStore/ });
  assert.throws(() => new CDSHooksService({ auth: { issuers: [{ issuer: 'x', jwksUrls: ['https://x.example/jwks'] }], replayStore: { get() {} } as never } }), {
    name: 'TypeError',
    message: /options\.auth\.replayStore/,
  });
  void t;
});

test('redisStore: a command that fails or hangs rejects with ERR_STORE_UNAVAILABLE, without its arguments in the message', async () => {
  const hung = redisStore({ sendCommand: () => new Promise(() => {}) }, { commandTimeoutMs: 50 });
  await assert.rejects(hung.get('k'), { code: 'ERR_STORE_UNAVAILABLE', message: 'Redis did not answer GET within 50 ms' });
  const offline = redisStore({ sendCommand: () => Promise.reject(Object.assign(new Error('The client is offline'), { name: 'ClientOfflineError' })) });
  await assert.rejects(offline.set('k', 'token-value', 1000), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_STORE_UNAVAILABLE');
    assert.equal(err.message, 'Redis SET failed (ClientOfflineError: The client is offline)');
    return true;
  });
  const throwing = redisStore({ sendCommand: () => { throw new Error('sync'); } });
  await assert.rejects(throwing.setIfAbsent('k', 'v', 1000), { code: 'ERR_STORE_UNAVAILABLE' });
});

test('a CDS client JWT accepted by replica A is refused as a replay by replica B', async (t) => {
  const client = await connect(t);
  if (client === undefined) return;
  const store = redisStore(client);
  const ehr = await startCdsClient(t);
  const [a, b] = [await cdsReplica(t, ehr.issuer, ehr.jwksUrl, store), await cdsReplica(t, ehr.issuer, ehr.jwksUrl, store)];
  const token = ehr.token(CDS_AUDIENCE);
  assert.equal((await callCds(a, token)).status, 200);
  const replayed = await callCds(b, token);
  assert.equal(replayed.status, 401);
  assert.equal((await callCds(a, token)).status, 401);
  assert.equal((await callCds(b, ehr.token(CDS_AUDIENCE))).status, 200, 'a fresh token is still accepted by B');
  // The shared entry expires with the token (exp 60 s + 60 s tolerance), and holds no part of it.
  const entries = await dump(client);
  assert.equal(entries.length, 2);
  for (const [key, value] of entries) {
    assert.match(key, /^fhirgate:jti:[A-Za-z0-9_-]{43}$/);
    assert.equal(value, '1');
    const pttl = await client.pTTL(key);
    assert.ok(pttl > 60_000 && pttl <= 120_000, `PTTL ${pttl}`);
  }
});

test('a replay store that fails refuses the call (fails closed) with 503 ERR_STORE_UNAVAILABLE, not as bad credentials', async (t) => {
  const ehr = await startCdsClient(t);
  const broken = { get: async () => undefined, set: async () => {}, setIfAbsent: async (): Promise<boolean> => Promise.reject(new Error('ECONNREFUSED')) };
  const url = await cdsReplica(t, ehr.issuer, ehr.jwksUrl, broken);
  const r = await callCds(url, ehr.token(CDS_AUDIENCE));
  assert.equal(r.status, 503);
  assert.equal(r.headers.get('retry-after'), '1');
  assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'ERR_STORE_UNAVAILABLE');
  // A token that fails its signature check is still a 401: the store is asked only for verified tokens.
  assert.equal((await callCds(url, `${ehr.token(CDS_AUDIENCE)}x`)).status, 401);
});

test('two gateways sharing a Redis token store make one token request between them for a cold burst', async (t) => {
  const client = await connect(t);
  if (client === undefined) return;
  const secret = `s3cret-${randomUUID()}`;
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'app', clientSecret: secret }], seed: [{ resourceType: 'Patient', id: 'p1' }] });
  const replicas = [0, 1].map(() => new AsyncFHIRGateway({ tokenStore: redisStore(client), events: false }));
  for (const gw of replicas) {
    t.after(() => gw.close());
    gw.addSource('ehr', sandbox.connectionString('app'));
  }
  const reads = replicas.flatMap((gw) => Array.from({ length: 25 }, () => gw.read('Patient', 'p1')));
  const patients = await Promise.all(reads);
  assert.equal(patients.length, 50);
  assert.ok(patients.every((p) => p.id === 'p1'));
  assert.equal(sandbox.stats.tokenRequests, 1);
  const entries = await dump(client);
  const tokenEntry = entries.find(([k]) => !k.endsWith(':lock'));
  assert.ok(tokenEntry !== undefined);
  assert.match(tokenEntry[0], /^fhirgate:token:[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(Object.keys(JSON.parse(tokenEntry[1])).sort(), ['access_token', 'refresh_at']);
  // 300 s tokens are refreshed 30 s early: the shared copy lives 270 s at most.
  const pttl = await client.pTTL(tokenEntry[0]);
  assert.ok(pttl > 200_000 && pttl <= 270_000, `PTTL ${pttl}`);
  for (const [key, value] of entries) {
    assert.ok(!key.includes(secret) && !value.includes(secret), 'no client secret in the store');
    assert.ok(!key.includes('app') || key.startsWith('fhirgate:'), key);
  }
  // A third replica starting later takes the shared token without asking.
  const late = new AsyncFHIRGateway({ tokenStore: redisStore(client), events: false });
  t.after(() => late.close());
  late.addSource('ehr', sandbox.connectionString('app'));
  assert.equal((await late.read('Patient', 'p1')).id, 'p1');
  assert.equal(sandbox.stats.tokenRequests, 1);
});

test('a token store of an assertion source holds no part of the private key', async (t) => {
  const client = await connect(t);
  if (client === undefined) return;
  const [key] = writeTestKeys(t).filter((k) => k.label === 'EC PKCS#8');
  assert.ok(key !== undefined);
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'backend', publicKey: key.publicKey }], seed: [{ resourceType: 'Patient', id: 'p1' }] });
  const gw = new AsyncFHIRGateway({ tokenStore: redisStore(client), events: false });
  t.after(() => gw.close());
  gw.addSource('ehr', sandbox.connectionString('backend', { keyPath: key.path }));
  assert.equal((await gw.read('Patient', 'p1')).id, 'p1');
  assert.equal(sandbox.stats.lastAuthMethod, 'private_key_jwt');
  const pem = readFileSync(key.path, 'utf8');
  const body = pem.split('\n').filter((l) => l !== '' && !l.startsWith('-----')).join('');
  const entries = await dump(client);
  assert.ok(entries.length >= 1);
  for (const [k, v] of entries) {
    for (const part of [body.slice(0, 40), body.slice(-40), 'PRIVATE KEY', 'client_assertion']) assert.ok(!k.includes(part) && !v.includes(part), `${part} in ${k}`);
  }
});

test('when the token store fails, each gateway fetches its own token and reads go on', async (t) => {
  const sandbox = await testSandbox(t, { seed: [{ resourceType: 'Patient', id: 'p1' }] });
  const down = () => Promise.reject(new Error('ECONNREFUSED'));
  const gw = new AsyncFHIRGateway({ tokenStore: { get: down, set: down, setIfAbsent: down }, events: false });
  t.after(() => gw.close());
  gw.addSource('ehr', sandbox.connectionString());
  assert.equal((await gw.read('Patient', 'p1')).id, 'p1');
  assert.equal(sandbox.stats.tokenRequests, 1);
});

test('a fetched token is used at once: a token store that never answers the write holds up no read', async (t) => {
  const sandbox = await testSandbox(t, { seed: [{ resourceType: 'Patient', id: 'p1' }] });
  const writes: string[] = [];
  const stuck = {
    get: async () => undefined,
    setIfAbsent: async () => true,
    set: (key: string) => {
      writes.push(key);
      return new Promise<void>(() => {});
    },
  };
  const gw = new AsyncFHIRGateway({ tokenStore: stuck, events: false });
  t.after(() => gw.close());
  gw.addSource('ehr', sandbox.connectionString());
  const read = gw.read('Patient', 'p1').then((p) => p.id);
  // Well below the gateway's 30 s time-out, which a read waiting on the write would run into.
  assert.equal(await Promise.race([read, sleep(15_000, 'still waiting after 15 s', { ref: false })]), 'p1');
  assert.ok(writes.some((k) => /^fhirgate:token:[A-Za-z0-9_-]{43}$/.test(k)), 'the token was still offered to the store');
});
