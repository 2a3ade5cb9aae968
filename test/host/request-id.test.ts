// X-Request-ID: which id a request gets (echoed, replaced or issued), where it shows (the answer, the
// handler, the access log and ctx.log), and how it is read from the raw headers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickRequestId } from '../../src/host/request-id.js';
import { startApp } from '../support/serve.js';
import { call, rawRequest } from '../support/host-helpers.js';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('a request without a sane X-Request-ID gets a new UUID-shaped id, different for every request', () => {
  const ids = new Set<string>();
  for (const incoming of [undefined, '', '<script>', 'x'.repeat(129), ['a', 'b']] as const) {
    for (let i = 0; i < 1000; i++) ids.add(pickRequestId(incoming as string | string[] | undefined));
  }
  assert.equal(ids.size, 5000);
  for (const id of ids) assert.match(id, UUID_SHAPE);
  assert.equal(pickRequestId('abc-123'), 'abc-123');
});

test('the host echoes the id it issued in X-Request-ID and hands the same one to the handler', async (t) => {
  const { base } = await startApp(t, {}, (a) => a.get('/r', (ctx) => ({ id: ctx.requestId })));
  const seen = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${base}/r`);
    const header = res.headers.get('x-request-id') ?? '';
    assert.match(header, UUID_SHAPE);
    assert.deepEqual(await res.json(), { id: header });
    seen.add(header);
  }
  assert.equal(seen.size, 3);
});

test('X-Request-ID is read from the raw headers: any case is echoed; a repeated one is replaced by a UUID', async (t) => {
  const { base } = await startApp(t, {}, (a) => a.get('/r', (ctx) => ({ id: ctx.requestId })));
  const once = await rawRequest(base, 'GET /r HTTP/1.1\r\nHost: x\r\nX-REQUEST-ID: Abc-1\r\nConnection: close\r\n\r\n');
  assert.match(once, /\r\nx-request-id: Abc-1\r\n/i);
  assert.match(once, /"id":"Abc-1"/);
  const twice = await rawRequest(base, 'GET /r HTTP/1.1\r\nHost: x\r\nX-Request-ID: a\r\nx-request-id: b\r\nConnection: close\r\n\r\n');
  const id = /\r\nx-request-id: ([^\r]*)\r\n/i.exec(twice)?.[1];
  assert.match(String(id), /^[0-9a-f-]{36}$/);
  assert.match(twice, new RegExp(`"id":"${id}"`));
});

test('X-Request-ID: a sane one is echoed, an odd one replaced, a missing one generated; all on the log line', async (t) => {
  const { base, log } = await startApp(t, {}, (a) => a.get('/r', (ctx) => ({ id: ctx.requestId })));
  const echoed = await call(base, '/r', { headers: { 'x-request-id': 'abc-123.x:y_z' } });
  assert.equal(echoed.headers['x-request-id'], 'abc-123.x:y_z');
  assert.deepEqual(echoed.json(), { id: 'abc-123.x:y_z' });
  const odd = await call(base, '/r', { headers: { 'x-request-id': 'has spaces <and> "quotes"' } });
  assert.match(String(odd.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const missing = await call(base, '/nowhere');
  assert.match(String(missing.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const access = log.lines.filter((l) => l.message === 'request');
  assert.equal(access.length, 3);
  assert.deepEqual(access.map((l) => l.fields['request_id']), ['abc-123.x:y_z', odd.headers['x-request-id'], missing.headers['x-request-id']]);
  assert.deepEqual({ ...access[0]!.fields, duration_ms: 0 }, { request_id: 'abc-123.x:y_z', trace_id: echoed.headers['x-trace-id'], method: 'GET', route: '/r', status: 200, duration_ms: 0 });
  assert.equal(access[2]!.fields['route'], null);
  assert.equal(echoed.headers['x-content-type-options'], 'nosniff');
});

test('ctx.log binds the request id and the trace id', async (t) => {
  const { base, log } = await startApp(t, {}, (a) => {
    a.get('/logs', (ctx) => {
      ctx.log.warn('custom line', { step: 1 });
      return 'ok';
    });
  });
  const answer = await call(base, '/logs', { headers: { 'x-request-id': 'log-1' } });
  const line = log.lines.find((l) => l.message === 'custom line');
  assert.match(String(answer.headers['x-trace-id']), /^[0-9a-f]{32}$/);
  assert.deepEqual(line, { level: 'warn', message: 'custom line', fields: { request_id: 'log-1', trace_id: answer.headers['x-trace-id'], step: 1 } });
});
