import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { FhirgateError } from '../../src/errors.js';
import { createServiceAPI, getAllGateways, getApp, getGateway, reply } from '../../src/host/index.js';
import type { ServiceAPI } from '../../src/host/index.js';
import { captureLogger } from '../support/logger.js';
import { startApp } from '../support/serve.js';
import { call, FakeGateway } from '../support/host-helpers.js';

test('injects a gateway by class, by name, all gateways and the app, resolved per request', async (t) => {
  const gw = new FakeGateway();
  const backup = new FakeGateway();
  let seen: { byClass: FakeGateway; byName: unknown; all: ReadonlyMap<string, unknown>; app: ServiceAPI } | undefined;
  const { base, app } = await startApp(t, {}, (a) => {
    a.get(
      '/deps/:id',
      { inject: { byClass: getGateway(FakeGateway), byName: getGateway('Backup'), all: getAllGateways(), app: getApp() } },
      (ctx) => {
        seen = ctx.deps;
        assert.equal(Object.getPrototypeOf(ctx.deps), null);
        return { id: ctx.params.id, gateways: [...ctx.deps.all.keys()], title: ctx.deps.app.gateways.size };
      },
    );
    a.registerGateway(gw);
    a.registerGateway(backup, { name: 'Backup', path: '/backup' });
  });
  const res = await call(base, '/deps/42');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { id: '42', gateways: ['FakeGateway', 'Backup'], title: 2 });
  assert.equal(seen?.byClass, gw);
  assert.equal(seen?.byName, backup);
  assert.equal(seen?.app, app);
});

test('listen() rejects with ERR_UNKNOWN_DEPENDENCY when an injected gateway is not registered', async () => {
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  app.get('/x', { inject: { fhir: getGateway('AsyncFHIRGateway') } }, () => 'never');
  await assert.rejects(app.listen(0), (err: FhirgateError) => err.code === 'ERR_UNKNOWN_DEPENDENCY' && /GET \/x/.test(err.message) && /AsyncFHIRGateway/.test(err.message));
  await app.close();
});

test('through app.handler alone, an unresolvable gateway answers 500 and logs which one', async (t) => {
  const { createServer } = await import('node:http');
  const log = captureLogger();
  const app = createServiceAPI({ logger: log, apiKeys: [] });
  app.get('/x', { inject: { fhir: getGateway('Missing') } }, () => 'never');
  const server = createServer(app.handler).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  const res = await call(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`, '/x');
  assert.equal(res.status, 500);
  assert.equal(res.json().error.code, 'ERR_HANDLER');
  const line = log.lines.find((l) => l.message === 'dependency not resolvable');
  assert.ok(line);
  assert.equal(line.fields['route'], 'GET /x');
  assert.match(String(line.fields['error']), /Missing/);
});

test('route options and tokens are validated at once', () => {
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  assert.throws(() => app.route('TRACE' as never, '/x', () => 1), RangeError);
  assert.throws(() => app.get('x', () => 1), TypeError);
  assert.throws(() => app.get('/x', null as never, () => 1), TypeError);
  assert.throws(() => app.get('/x', {}, 'nope' as never), TypeError);
  assert.throws(() => app.get('/x', { inject: { a: {} as never } }, () => 1), /inject\.a/);
  assert.throws(() => app.get('/x', { query: { q: { type: 'date' as never } } }, () => 1), RangeError);
  assert.throws(() => app.get('/x', { query: { q: null as never } }, () => 1), TypeError);
  assert.throws(() => getGateway(''), TypeError);
  app.get('/dup', () => 1);
  assert.throws(() => app.get('/dup/', () => 2), { code: 'ERR_DUPLICATE_ROUTE' });
});

test('ctx.query is a null-prototype object, repeated keys give arrays; ctx has headers, url, requestId, method', async (t) => {
  const { base } = await startApp(t, {}, (a) =>
    a.get('/q', (ctx) => ({
      query: ctx.query,
      proto: Object.getPrototypeOf(ctx.query) === null,
      header: ctx.headers['x-custom'],
      url: ctx.url.pathname + ctx.url.search,
      requestId: ctx.requestId,
      method: ctx.method,
    })),
  );
  const res = await call(base, '/q?sources=a&sources=b&sources=c&one=1&__proto__=x', { headers: { 'x-custom': 'v', 'x-request-id': 'rid-1' } });
  assert.deepEqual(res.json(), {
    query: JSON.parse('{"sources":["a","b","c"],"one":"1","__proto__":"x"}'),
    proto: true,
    header: 'v',
    url: '/q?sources=a&sources=b&sources=c&one=1&__proto__=x',
    requestId: 'rid-1',
    method: 'GET',
  });
});

test('ctx.json() parses lazily: undefined when empty, 400 malformed, 415 not JSON, 413 over the limit', async (t) => {
  let calls = 0;
  const { base } = await startApp(t, { bodyLimit: 64 }, (a) => {
    a.post('/echo', async (ctx) => {
      calls += 1;
      const body = await ctx.json();
      assert.equal(await ctx.json(), body);
      return { body: body ?? null };
    });
    a.post('/ignore', () => ({ ignored: true }));
  });
  const ok = await call(base, '/echo', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/fhir+json; charset=utf-8' } });
  assert.deepEqual(ok.json(), { body: { a: 1 } });
  assert.deepEqual((await call(base, '/echo', { method: 'POST' })).json(), { body: null });

  const malformed = await call(base, '/echo', { method: 'POST', body: '{"a":', headers: { 'content-type': 'application/json' } });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.json().error.code, 'ERR_BAD_REQUEST');

  const text = await call(base, '/echo', { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(text.status, 415);
  assert.equal(text.json().error.code, 'ERR_UNSUPPORTED_MEDIA_TYPE');

  const big = await call(base, '/echo', { method: 'POST', body: JSON.stringify({ a: 'x'.repeat(100) }), headers: { 'content-type': 'application/json' } });
  assert.equal(big.status, 413);
  assert.equal(big.json().error.code, 'ERR_BODY_TOO_LARGE');

  const chunked = await new Promise<number>((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest({ host: url.hostname, port: url.port, path: '/echo', method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write('"');
    req.end(`${'y'.repeat(200)}"`);
  });
  assert.equal(chunked, 413);
  assert.equal(calls, 6);

  const ignored = await call(base, '/ignore', { method: 'POST', body: 'not json at all', headers: { 'content-type': 'text/plain' } });
  assert.deepEqual(ignored.json(), { ignored: true });
});

test('reply() sets status, headers and body types; a returned value is JSON 200; undefined is 204', async (t) => {
  const { base } = await startApp(t, {}, (a) => {
    a.post('/created', () => reply(201, { id: '7' }, { location: '/things/7' }));
    a.get('/text', () => reply(200, 'plain words'));
    a.get('/bytes', () => reply(200, new Uint8Array([1, 2, 3])));
    a.get('/typed', () => reply(200, '<x/>', { 'Content-Type': 'application/xml' }));
    a.get('/empty', () => reply(202));
    a.get('/value', async () => ['a', 1]);
    a.put('/nothing', () => undefined);
  });
  const created = await call(base, '/created', { method: 'POST' });
  assert.equal(created.status, 201);
  assert.equal(created.headers['location'], '/things/7');
  assert.match(String(created.headers['content-type']), /^application\/json/);
  assert.deepEqual(created.json(), { id: '7' });
  const text = await call(base, '/text');
  assert.match(String(text.headers['content-type']), /^text\/plain/);
  assert.equal(text.text, 'plain words');
  const bytes = await call(base, '/bytes');
  assert.equal(bytes.headers['content-type'], 'application/octet-stream');
  assert.equal(bytes.headers['content-length'], '3');
  assert.equal((await call(base, '/typed')).headers['content-type'], 'application/xml');
  const empty = await call(base, '/empty');
  assert.equal(empty.status, 202);
  assert.equal(empty.text, '');
  const value = await call(base, '/value');
  assert.equal(value.status, 200);
  assert.deepEqual(value.json(), ['a', 1]);
  const nothing = await call(base, '/nothing', { method: 'PUT' });
  assert.equal(nothing.status, 204);
  assert.equal(nothing.text, '');
  assert.throws(() => reply(99), RangeError);
});

test('ctx.signal aborts when the client goes away', async (t) => {
  let aborted!: () => void;
  const abortedPromise = new Promise<void>((resolve) => (aborted = resolve));
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const { base } = await startApp(t, {}, (a) =>
    a.get('/slow', (ctx) => {
      started();
      return new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted();
          resolve({ late: true });
        });
      });
    }),
  );
  const controller = new AbortController();
  const pending = call(base, '/slow', { signal: controller.signal }).catch((e: Error) => e);
  await startedPromise;
  controller.abort();
  assert.ok((await pending) instanceof Error);
  await abortedPromise;
});

test('errors a handler throws map to statuses; 5xx bodies are generic and carry the request id', async (t) => {
  const { base, log } = await startApp(t, {}, (a) => {
    a.get('/bad', () => { throw new FhirgateError('ERR_BAD_REQUEST', 'id must be numeric'); });
    a.get('/gone', () => { throw new FhirgateError('ERR_NOT_FOUND', 'no such thing'); });
    a.get('/upstream', () => { throw new FhirgateError('ERR_FHIR_HTTP', 'server said 401 at https://x/token?secret', { status: 401 }); });
    a.get('/upstream404', () => { throw new FhirgateError('ERR_FHIR_HTTP', 'Patient/1 not found', { status: 404 }); });
    a.get('/timeout', () => { throw new FhirgateError('ERR_TIMEOUT', 'took too long'); });
    a.get('/closed', () => { throw new FhirgateError('ERR_CLOSED', 'the gateway is closed'); });
    a.get('/teapot', () => { throw new FhirgateError('ERR_HANDLER', 'short and stout', { status: 418 }); });
    a.get('/boom', async () => { throw new Error('password=hunter2 at /srv/app.js:1'); });
    a.get('/string', async () => { throw 'a string'; });
  });
  const expect = async (path: string, status: number, code: string) => {
    const res = await call(base, path, { headers: { 'x-request-id': `r-${status}` } });
    assert.equal(res.status, status, path);
    assert.equal(res.json().error.code, code, path);
    return res.json().error.message as string;
  };
  assert.equal(await expect('/bad', 400, 'ERR_BAD_REQUEST'), 'id must be numeric');
  await expect('/gone', 404, 'ERR_NOT_FOUND');
  assert.equal(await expect('/upstream', 502, 'ERR_FHIR_HTTP'), 'an upstream server failed (request id r-502)');
  await expect('/upstream404', 404, 'ERR_FHIR_HTTP');
  assert.equal(await expect('/timeout', 504, 'ERR_TIMEOUT'), 'an upstream server timed out (request id r-504)');
  assert.equal(await expect('/closed', 503, 'ERR_CLOSED'), 'the service is unavailable (request id r-503)');
  await expect('/teapot', 418, 'ERR_HANDLER');
  const message = await expect('/boom', 500, 'ERR_HANDLER');
  assert.equal(message, 'internal error (request id r-500)');
  await expect('/string', 500, 'ERR_HANDLER');
  const failed = log.lines.filter((l) => l.message === 'request failed');
  assert.ok(failed.some((l) => l.fields['error'] === 'password=hunter2 at /srv/app.js:1' && l.fields['request_id'] === 'r-500'));
  assert.ok(log.lines.every((l) => l.level === 'debug' || !JSON.stringify(l).includes('    at ')), 'no stack trace in the log above debug');
  const boom = failed.find((l) => l.fields['request_id'] === 'r-500' && l.level === 'error');
  assert.match(String(boom?.fields['at']), /custom-routes\.test\.[jt]s:\d+:\d+$/, 'the line names where the route threw');
  assert.ok(log.lines.some((l) => l.level === 'debug' && String(l.fields['stack']).startsWith('Error: password=hunter2')), 'its stack at debug');
  assert.equal((await call(base, '/bad')).status, 400, 'the server stays up');
});
