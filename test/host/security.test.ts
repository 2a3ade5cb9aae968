import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import { json } from '../../src/mount/index.js';
import { startApp } from '../support/serve.js';
import { call, FakeGateway } from '../support/host-helpers.js';

const KEY = 'k-0123456789';

test('with API keys, routes need Authorization: Bearer or X-API-Key; 401 carries WWW-Authenticate', async (t) => {
  const { base, log } = await startApp(t, { apiKeys: [KEY, 'second-key'] }, (a) => a.get('/private', () => ({ secret: 'data' })));
  const denied = await call(base, '/private');
  assert.equal(denied.status, 401);
  assert.equal(denied.headers['www-authenticate'], 'Bearer');
  assert.equal(denied.json().error.code, 'ERR_UNAUTHORIZED');
  assert.equal((await call(base, '/private', { headers: { authorization: 'Bearer wrong' } })).status, 401);
  assert.equal((await call(base, '/private', { headers: { 'x-api-key': `${KEY}x` } })).status, 401);
  assert.equal((await call(base, '/private', { headers: { authorization: `Basic ${KEY}` } })).status, 401);
  assert.equal((await call(base, '/private', { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
  assert.equal((await call(base, '/private', { headers: { authorization: `bearer second-key` } })).status, 200);
  assert.equal((await call(base, '/private', { headers: { 'x-api-key': KEY } })).status, 200);
  assert.equal((await call(base, '/private', { headers: { 'x-api-key': KEY, authorization: 'Bearer <a CDS client JWT>' } })).status, 200);
  assert.equal((await call(base, '/')).status, 401);
  assert.equal((await call(base, '/gateway/status')).status, 401);
  assert.equal((await call(base, '/unknown')).status, 401, 'no route discovery without a key');
  assert.ok(!JSON.stringify(log.lines).includes(KEY), 'the key never reaches a log line');
});

test('/health, /docs and /openapi.json and routes a component marks public need no key', async (t) => {
  const gw = new FakeGateway({
    routes: [
      { method: 'GET', path: '/metadata', public: true, handle: () => json(200, { public: true }) },
      { method: 'GET', path: '/status', handle: () => json(200, { public: false }) },
    ],
  });
  const { base } = await startApp(t, { apiKeys: [KEY] }, (a) => {
    a.registerGateway(gw);
    a.get('/open', { public: true }, () => 'open');
  });
  for (const path of ['/health', '/docs', '/openapi.json', '/fhir/metadata', '/open']) assert.equal((await call(base, path)).status, 200, path);
  const closed = await call(base, '/fhir/status');
  assert.equal(closed.status, 401);
  assert.equal(closed.headers['content-type'], 'application/fhir+json; charset=utf-8');
  assert.equal(closed.json().issue[0].code, 'login');
});

test('the public path list is configurable', async (t) => {
  const { base } = await startApp(t, { apiKeys: [KEY], publicPaths: ['/', '/gateway/status'] });
  assert.equal((await call(base, '/')).status, 200);
  assert.equal((await call(base, '/gateway/status')).status, 200);
  assert.equal((await call(base, '/health')).status, 401);
});

test('createServiceAPI reads no environment: FHIRGATE_API_KEYS alone turns no check on, the apiKeys option does', async (t) => {
  const before = process.env['FHIRGATE_API_KEYS'];
  process.env['FHIRGATE_API_KEYS'] = 'env-key-1,env-key-2';
  t.after(() => (before === undefined ? delete process.env['FHIRGATE_API_KEYS'] : (process.env['FHIRGATE_API_KEYS'] = before)));
  const open = await startApp(t, {}, (a) => a.get('/p', () => 1));
  assert.equal((await call(open.base, '/p')).status, 200, 'no apiKeys option: no check, whatever the environment holds');
  const { base } = await startApp(t, { apiKeys: ['opt-key-1', 'opt-key-2'] }, (a) => a.get('/p', () => 1));
  assert.equal((await call(base, '/p')).status, 401);
  assert.equal((await call(base, '/p', { headers: { 'x-api-key': 'env-key-2' } })).status, 401);
  assert.equal((await call(base, '/p', { headers: { 'x-api-key': 'opt-key-2' } })).status, 200);
  const doc = (await call(base, '/openapi.json')).json();
  assert.deepEqual(doc.security, [{ bearerKey: [] }, { headerKey: [] }]);
  assert.deepEqual(doc.paths['/health'].get.security, []);
  assert.equal(doc.paths['/p'].get.security, undefined);
});

test('CORS is off by default: no Access-Control headers, OPTIONS is a 405', async (t) => {
  const { base } = await startApp(t, {}, (a) => a.get('/c', () => 1));
  const res = await call(base, '/c', { headers: { origin: 'https://ehr.example.org' } });
  assert.equal(res.headers['access-control-allow-origin'], undefined);
  const pre = await call(base, '/c', { method: 'OPTIONS', headers: { origin: 'https://ehr.example.org', 'access-control-request-method': 'GET' } });
  assert.equal(pre.status, 405);
});

test('CORS allowlist: allowed origins get headers, preflights are answered before authentication', async (t) => {
  const origin = 'https://ehr.example.org';
  const { base } = await startApp(t, { apiKeys: [KEY], cors: { origins: [origin], credentials: true, maxAgeSeconds: 60 } }, (a) => a.post('/c', () => 1));
  const pre = await call(base, '/c', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type' } });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers['access-control-allow-origin'], origin);
  assert.equal(pre.headers['access-control-allow-credentials'], 'true');
  assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
  assert.match(String(pre.headers['access-control-allow-headers']), /x-api-key/);
  assert.equal(pre.headers['access-control-max-age'], '60');
  assert.equal(pre.headers['vary'], 'Origin');

  const actual = await call(base, '/c', { method: 'POST', headers: { origin, 'x-api-key': KEY } });
  assert.equal(actual.status, 200);
  assert.equal(actual.headers['access-control-allow-origin'], origin);
  assert.equal(actual.headers['access-control-expose-headers'], 'x-request-id');

  const denied = await call(base, '/c', { method: 'POST', headers: { origin } });
  assert.equal(denied.status, 401);
  assert.equal(denied.headers['access-control-allow-origin'], origin, 'the browser can read the 401');

  const stranger = 'https://evil.example.com';
  const strangePre = await call(base, '/c', { method: 'OPTIONS', headers: { origin: stranger, 'access-control-request-method': 'POST' } });
  assert.equal(strangePre.status, 204);
  assert.equal(strangePre.headers['access-control-allow-origin'], undefined);
  const strangeActual = await call(base, '/c', { method: 'POST', headers: { origin: stranger, 'x-api-key': KEY } });
  assert.equal(strangeActual.headers['access-control-allow-origin'], undefined);
});

test('CORS with "*" answers any origin with "*" and never with credentials', async (t) => {
  const { base } = await startApp(t, { cors: { origins: '*' } }, (a) => a.get('/c', () => 1));
  const res = await call(base, '/c', { headers: { origin: 'https://any.example' } });
  assert.equal(res.headers['access-control-allow-origin'], '*');
  assert.equal(res.headers['access-control-allow-credentials'], undefined);
  assert.throws(() => createServiceAPI({ cors: { origins: '*', credentials: true } }), RangeError);
  assert.throws(() => createServiceAPI({ cors: { origins: ['https://ehr.example.org/'] } }), /origins/);
  assert.throws(() => createServiceAPI({ cors: { origins: 'https://x' as never } }), TypeError);
  assert.throws(() => createServiceAPI({ cors: { origins: [], credentials: 'yes' as never } }), /credentials/);
  assert.throws(() => createServiceAPI({ cors: { origins: [], maxAgeSeconds: -1 } }), /maxAgeSeconds/);
  assert.throws(() => createServiceAPI({ cors: null as never }), TypeError);
});

test('a slow client that never finishes its headers is cut by the headers time-out', async (t) => {
  const { base } = await startApp(t, { headersTimeoutMs: 200, requestTimeoutMs: 400 });
  const url = new URL(base);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n'));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error('safety net: the server never cut the connection')));
  });
  assert.match(answer, /^HTTP\/1\.1 408/);
});

test('nothing about credentials or bodies reaches the access log', async (t) => {
  const { base, log } = await startApp(t, { apiKeys: ['topsecret-key'] }, (a) => a.post('/p', async (ctx) => ctx.json()));
  await call(base, '/p', { method: 'POST', headers: { authorization: 'Bearer topsecret-key', 'content-type': 'application/json' }, body: '{"ssn":"123-45-6789"}' });
  const text = JSON.stringify(log.lines);
  assert.ok(!text.includes('topsecret-key'));
  assert.ok(!text.includes('123-45-6789'));
});
