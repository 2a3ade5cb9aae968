import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalEventDispatcher, localHandler } from '../../src/events/index.js';
import { createServiceAPI } from '../../src/host/index.js';
import { json } from '../../src/mount/index.js';
import type { RouteRequest } from '../../src/mount/index.js';
import { captureLogger } from '../support/logger.js';
import { startApp } from '../support/serve.js';
import { call, FakeGateway, FakeService } from './helpers.js';
import { VERSION } from '../../src/version.js';

const echoRoute = (path: string, extra: Partial<{ public: boolean }> = {}) => ({
  method: 'GET' as const,
  path,
  handle: (req: RouteRequest) => json(200, { params: { ...req.params }, baseUrl: req.baseUrl, url: req.url.href, method: req.method }),
  ...extra,
});

test('GET / names the app and lists gateways and services by class name', async (t) => {
  const { base, app } = await startApp(t, { title: 'Demo', description: 'a demo', version: '2.0.0' }, (a) => {
    a.registerGateway(new FakeGateway());
    a.registerService(new FakeService());
  });
  const res = await call(base, '/');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { name: 'Demo', version: '2.0.0', fhirgate_version: VERSION, description: 'a demo', gateways: ['FakeGateway'], services: ['FakeService'] });
  assert.deepEqual([...app.gateways.keys()], ['FakeGateway']);
  assert.deepEqual([...app.services.keys()], ['FakeService']);
});

test('a component mounts at its default path, and a prefix really moves its routes', async (t) => {
  const moved = new FakeGateway({ routes: [echoRoute('/transform/:type/:id')] });
  const { base } = await startApp(t, { publicUrl: 'http://gw.example.org:8080' }, (a) => {
    a.registerGateway(new FakeGateway({ routes: [echoRoute('/status')] }));
    a.registerGateway(moved, { path: '/other/fhir/', name: 'Second' });
  });
  assert.equal((await call(base, '/fhir/status')).status, 200);
  const res = await call(base, '/other/fhir/transform/Patient/1?source=x', { headers: { host: 'evil.example' } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), {
    params: { type: 'Patient', id: '1' },
    baseUrl: 'http://gw.example.org:8080/other/fhir',
    url: 'http://gw.example.org:8080/other/fhir/transform/Patient/1?source=x',
    method: 'GET',
  });
  assert.equal((await call(base, '/fhir/transform/Patient/1')).status, 404);
});

test('a component route with path "" answers at the prefix with and without the slash', async (t) => {
  const soap = new FakeService({
    defaultPath: '/notereader',
    routes: [{ method: 'POST', path: '', handle: async (req) => ({ status: 200, headers: { 'content-type': 'text/xml' }, body: await req.bytes() }) }],
  });
  const { base } = await startApp(t, {}, (a) => a.registerService(soap));
  for (const path of ['/notereader', '/notereader/']) {
    const res = await call(base, path, { method: 'POST', body: '<x/>', headers: { 'content-type': 'text/xml' } });
    assert.equal(res.status, 200, path);
    assert.equal(res.text, '<x/>');
  }
});

test('a second component of the same class needs a distinct name', () => {
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  app.registerGateway(new FakeGateway());
  assert.throws(() => app.registerGateway(new FakeGateway(), { path: '/fhir2' }), { code: 'ERR_DUPLICATE_NAME' });
  app.registerGateway(new FakeGateway(), { path: '/fhir2', name: 'Backup' });
  assert.deepEqual([...app.gateways.keys()], ['FakeGateway', 'Backup']);
});

test('registration is checked: kind, component shape, path, and route conflicts leave nothing behind', () => {
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  assert.throws(() => app.registerService(new FakeGateway()), TypeError);
  assert.throws(() => app.registerGateway(new FakeService()), TypeError);
  assert.throws(() => app.registerGateway({} as never), TypeError);
  assert.throws(() => app.registerGateway(new FakeGateway(), { path: 'fhir' }), TypeError);
  assert.throws(() => app.registerGateway(new FakeGateway(), { path: '/a/:b' }), TypeError);
  assert.throws(() => app.registerGateway(new FakeGateway(), { name: '' }), TypeError);
  app.get('/fhir/status', () => 'mine');
  assert.throws(() => app.registerGateway(new FakeGateway({ routes: [echoRoute('/status')] })), { code: 'ERR_DUPLICATE_ROUTE' });
  assert.equal(app.gateways.size, 0);
});

test('events: components get the app dispatcher when on, null when off; the default is localHandler', async () => {
  const on = new FakeGateway();
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  app.registerGateway(on);
  assert.equal(app.dispatcher, localHandler);
  assert.equal(app.enableEvents, true);
  assert.equal(on.events, localHandler);

  const own = new LocalEventDispatcher();
  const off = new FakeGateway();
  const quiet = createServiceAPI({ logger: captureLogger(), apiKeys: [], enableEvents: false, dispatcher: own });
  quiet.registerGateway(off);
  assert.equal(off.events, null);
  assert.equal(quiet.dispatcher, own);
  await Promise.all([app.close(), quiet.close()]);
});

test('GET /gateway/status reports each component with status defaulting to active, and the events', async (t) => {
  const { base } = await startApp(t, {}, (a) => {
    a.registerGateway(new FakeGateway({ status: () => ({ sources: ['epic'], connection_pool: { open: 1 } }) }));
    a.registerGateway(new FakeGateway({ status: () => ({ status: 'degraded' }) }), { name: 'Degraded', path: '/g2' });
    a.registerGateway(new FakeGateway({ status: () => { throw new Error('boom'); } }), { name: 'Broken', path: '/g3' });
    a.registerService(new FakeService({ status: () => ({ hooks: ['patient-view'] }) }));
  });
  const res = await call(base, '/gateway/status');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), {
    gateways: {
      FakeGateway: { status: 'active', sources: ['epic'], connection_pool: { open: 1 } },
      Degraded: { status: 'degraded' },
      Broken: { status: 'error' },
    },
    services: { FakeService: { status: 'active', hooks: ['patient-view'] } },
    events: { enabled: true, dispatcher: 'LocalEventDispatcher' },
  });
});

test('GET /health answers 200 while serving', async (t) => {
  const { base } = await startApp(t);
  const res = await call(base, '/health/');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { status: 'healthy', pid: process.pid });
});

test('option misuse throws TypeError or RangeError naming the option', () => {
  assert.throws(() => createServiceAPI({ bodyLimit: -1 }), /bodyLimit/);
  assert.throws(() => createServiceAPI({ bodyLimit: '1' as never }), TypeError);
  assert.throws(() => createServiceAPI({ title: 3 as never }), /title/);
  assert.throws(() => createServiceAPI({ enableEvents: 'yes' as never }), /enableEvents/);
  assert.throws(() => createServiceAPI({ logger: {} as never }), /logger/);
  assert.throws(() => createServiceAPI({ dispatcher: {} as never }), /dispatcher/);
  assert.throws(() => createServiceAPI({ publicPaths: ['health'] }), /publicPaths/);
  assert.throws(() => createServiceAPI({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 }), RangeError);
  assert.throws(() => createServiceAPI({ apiKeys: [''] }), /apiKeys/);
  assert.throws(() => createServiceAPI(null as never), TypeError);
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  assert.throws(() => app.listen(-1), /port/);
  assert.throws(() => app.listen(0, ''), /host/);
});

test('listen() on a taken port rejects, and the app can still listen elsewhere', async (t) => {
  const { app, base } = await startApp(t);
  const port = Number(new URL(base).port);
  await assert.rejects(app.listen(port), { code: 'EADDRINUSE' });
});

test('the handler is a plain (req, res) listener usable on any node:http server', async (t) => {
  const { createServer } = await import('node:http');
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  app.get('/plain', () => ({ plain: true }));
  const server = createServer(app.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  t.after(() => app.close());
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const res = await call(`http://127.0.0.1:${port}`, '/plain');
  assert.deepEqual(res.json(), { plain: true });
});
