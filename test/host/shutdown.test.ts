import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { test } from 'node:test';
import type { EventDispatcher } from '../../src/events/types.js';
import { createServiceAPI } from '../../src/host/index.js';
import { captureLogger } from '../support/logger.js';
import { call, FakeGateway } from '../support/host-helpers.js';

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function countingDispatcher(): EventDispatcher & { drains: number } {
  const d = { drains: 0, emit: () => {}, register: () => () => {}, drain: async () => void (d.drains += 1) };
  return d;
}

const portOf = (server: Server) => {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
};

test('close() lets an in-flight request finish, then drains events and closes components; it is idempotent', async () => {
  const dispatcher = countingDispatcher();
  const gw = new FakeGateway();
  const log = captureLogger();
  const app = createServiceAPI({ logger: log, apiKeys: [], dispatcher });
  app.registerGateway(gw);
  const started = deferred();
  const release = deferred();
  app.get('/slow', async () => {
    started.resolve();
    await release.promise;
    return { done: true };
  });
  const server = await app.listen(0);
  const base = `http://127.0.0.1:${portOf(server)}`;
  const pending = call(base, '/slow');
  await started.promise;

  let closed = false;
  const closing = app.close().then(() => (closed = true));
  assert.equal(app.close(), app.close(), 'the same promise every time');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(closed, false, 'waits for the in-flight request');
  assert.equal(gw.closeCalls, 0);
  assert.throws(() => app.registerGateway(new FakeGateway(), { name: 'late', path: '/late' }), { code: 'ERR_CLOSED' });
  assert.throws(() => app.get('/late', () => 1), { code: 'ERR_CLOSED' });

  release.resolve();
  const res = await pending;
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { done: true });
  assert.equal(res.headers['connection'], 'close');
  await closing;
  assert.equal(gw.closeCalls, 1);
  assert.equal(dispatcher.drains, 1);
  await assert.rejects(call(base, '/health'), { code: 'ECONNREFUSED' });
  await assert.rejects(app.listen(0), { code: 'ERR_CLOSED' });
  await app.close();
  assert.equal(gw.closeCalls, 1);
});

test('/health answers 503 once shutting down', async (t) => {
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  const started = deferred();
  const release = deferred();
  app.get('/slow', async () => {
    started.resolve();
    await release.promise;
    return 1;
  });
  const server = createServer(app.handler).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${portOf(server)}`;
  assert.equal((await call(base, '/health')).status, 200);
  const pending = call(base, '/slow');
  await started.promise;
  const closing = app.close();
  const health = await call(base, '/health');
  assert.equal(health.status, 503);
  assert.deepEqual(health.json(), { status: 'shutting down', pid: process.pid });
  release.resolve();
  await pending;
  await closing;
});

test('past the grace period, in-flight requests are aborted and connections cut', async () => {
  const log = captureLogger();
  const app = createServiceAPI({ logger: log, apiKeys: [], shutdownGraceMs: 50, enableEvents: false, dispatcher: countingDispatcher() });
  const started = deferred();
  const abortedWith = deferred<unknown>();
  app.get('/stuck', (ctx) => {
    ctx.signal.addEventListener('abort', () => abortedWith.resolve(ctx.signal.reason));
    started.resolve();
    return new Promise(() => {});
  });
  const server = await app.listen(0);
  const pending = call(`http://127.0.0.1:${portOf(server)}`, '/stuck').then(
    () => 'answered',
    (e: NodeJS.ErrnoException) => e.code,
  );
  await started.promise;
  await app.close();
  assert.equal(((await abortedWith.promise) as { code?: string }).code, 'ERR_CLOSED');
  assert.equal(await pending, 'ECONNRESET');
  assert.equal((app.dispatcher as ReturnType<typeof countingDispatcher>).drains, 0, 'no drain when events are off');
});

test('a component whose close() rejects is logged, and the others still close', async () => {
  const log = captureLogger();
  const app = createServiceAPI({ logger: log, apiKeys: [] });
  const bad = new FakeGateway();
  const good = new FakeGateway();
  const mount = bad[Symbol.for('fhirgate.mount') as never] as () => Record<string, unknown>;
  (bad as unknown as Record<symbol, unknown>)[Symbol.for('fhirgate.mount')] = () => ({ ...mount.call(bad), close: async () => { throw new Error('stuck socket'); } });
  app.registerGateway(bad, { name: 'Bad', path: '/bad' });
  app.registerGateway(good);
  await app.close();
  assert.equal(good.closeCalls, 1);
  assert.ok(log.lines.some((l) => l.message === 'component close failed' && l.fields['component'] === 'Bad'));
});

test('await using closes the app', async () => {
  const gw = new FakeGateway();
  {
    await using app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
    app.registerGateway(gw);
  }
  assert.equal(gw.closeCalls, 1);
});
