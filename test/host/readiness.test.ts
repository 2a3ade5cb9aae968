import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { test } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import { captureLogger } from '../support/logger.js';
import { call } from '../support/host-helpers.js';

const portOf = (server: Server) => {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
};

test('/health/ready is 503 "starting" until listen() resolves, then 200; /health carries the pid', async (t) => {
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: ['k'] });
  const own = createServer(app.handler).listen(0, '127.0.0.1');
  await once(own, 'listening');
  t.after(() => new Promise<void>((resolve) => own.close(() => resolve())));
  const ownBase = `http://127.0.0.1:${portOf(own)}`;
  const starting = await call(ownBase, '/health/ready');
  assert.equal(starting.status, 503);
  assert.deepEqual(starting.json(), { status: 'starting' });
  assert.deepEqual((await call(ownBase, '/health')).json(), { status: 'healthy', pid: process.pid });

  const server = await app.listen(0);
  t.after(() => app.close());
  const ready = await call(`http://127.0.0.1:${portOf(server)}`, '/health/ready');
  assert.equal(ready.status, 200, 'no API key needed: it is a default public path');
  assert.deepEqual(ready.json(), { status: 'ready' });
  assert.equal((await call(ownBase, '/health/ready', { method: 'HEAD' })).status, 200);
});

test('markReady() makes an app served through app.handler ready', async (t) => {
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  const own = createServer(app.handler).listen(0, '127.0.0.1');
  await once(own, 'listening');
  t.after(() => new Promise<void>((resolve) => own.close(() => resolve())));
  const base = `http://127.0.0.1:${portOf(own)}`;
  assert.equal((await call(base, '/health/ready')).status, 503);
  app.markReady();
  assert.equal((await call(base, '/health/ready')).status, 200);
  await app.close();
  assert.deepEqual((await call(base, '/health/ready')).json(), { status: 'draining' });
});

test('close() keeps serving for readinessDrainMs with /health/ready at 503, then stops accepting', async () => {
  const log = captureLogger();
  // Long enough for the two requests below to be answered within it on a loaded machine.
  const app = createServiceAPI({ logger: log, apiKeys: [], readinessDrainMs: 5000 });
  app.get('/work', () => ({ done: true }));
  const server = await app.listen(0);
  const base = `http://127.0.0.1:${portOf(server)}`;
  const started = performance.now();
  const closing = app.close();
  const ready = await call(base, '/health/ready');
  assert.equal(ready.status, 503);
  assert.deepEqual(ready.json(), { status: 'draining' });
  const work = await call(base, '/work');
  assert.equal(work.status, 200, 'a new connection during the drain is still served');
  assert.equal(work.headers['connection'], 'close');
  await closing;
  assert.ok(performance.now() - started >= 4990, 'the listener stayed open for the drain time');
  assert.deepEqual(log.lines.filter((l) => l.message === 'draining').map((l) => l.fields), [{ readiness_drain_ms: 5000 }]);
  await assert.rejects(call(base, '/health/ready'), { code: 'ECONNREFUSED' });
});

test('close({ readinessDrainMs: 0 }) skips the drain; bad values throw naming the option', async () => {
  const log = captureLogger();
  const app = createServiceAPI({ logger: log, apiKeys: [], readinessDrainMs: 60_000 });
  await app.listen(0);
  assert.throws(() => app.close({ readinessDrainMs: -1 }), { name: 'RangeError', message: /options\.readinessDrainMs/ });
  assert.throws(() => app.close({ readinessDrainMs: '5' as never }), { name: 'TypeError', message: /options\.readinessDrainMs/ });
  assert.throws(() => app.close(null as never), TypeError);
  await app.close({ readinessDrainMs: 0 });
  assert.equal(log.lines.filter((l) => l.message === 'draining').length, 0);
  assert.throws(() => createServiceAPI({ readinessDrainMs: 1.5 }), { name: 'RangeError', message: /options\.readinessDrainMs/ });
});
