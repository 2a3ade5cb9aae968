import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { createJSONLogger } from '../../src/host/index.js';
import { json } from '../../src/mount/index.js';
import { startApp } from '../support/serve.js';
import { call, FakeGateway } from './helpers.js';

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
  assert.deepEqual({ ...access[0]!.fields, duration_ms: 0 }, { request_id: 'abc-123.x:y_z', method: 'GET', route: '/r', status: 200, duration_ms: 0 });
  assert.equal(access[2]!.fields['route'], null);
  assert.equal(echoed.headers['x-content-type-options'], 'nosniff');
});

test('routes under a gateway prefix answer errors as OperationOutcome, others as JSON errors', async (t) => {
  const gw = new FakeGateway({
    routes: [
      { method: 'GET', path: '/boom', handle: () => { throw new Error('internal detail'); } },
      { method: 'POST', path: '/only-post', handle: () => json(200, {}) },
    ],
  });
  const { base } = await startApp(t, {}, (a) => a.registerGateway(gw));
  const boom = await call(base, '/fhir/boom');
  assert.equal(boom.status, 500);
  assert.equal(boom.headers['content-type'], 'application/fhir+json; charset=utf-8');
  const outcome = boom.json();
  assert.equal(outcome.resourceType, 'OperationOutcome');
  assert.equal(outcome.issue[0].code, 'exception');
  assert.ok(!boom.text.includes('internal detail'));
  const unknown = await call(base, '/fhir/nothing/here');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json().issue[0].code, 'not-found');
  const wrongMethod = await call(base, '/fhir/only-post');
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.json().issue[0].code, 'not-supported');
  const elsewhere = await call(base, '/fhirx');
  assert.equal(elsewhere.json().error.code, 'ERR_NOT_FOUND');
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

test('a handler that never reads a huge declared body still gets a 413 before reading', async (t) => {
  const { base } = await startApp(t, { bodyLimit: 10 }, (a) => a.post('/b', async (ctx) => ({ got: await ctx.bytes() })));
  const res = await call(base, '/b', { method: 'POST', body: 'x'.repeat(11), headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 413);
  assert.equal(res.headers['connection'], 'close');
});

test('the default logger writes upstream text without control characters: no escape sequence, DEL or C1 reaches a terminal', () => {
  const out: string[] = [];
  const log = createJSONLogger({ stdout: { write: (l: string) => out.push(l) } });
  log.info('upstream answered', { detail: 'throttled\x9b2J\x1b]0;owned\x07 \x7fnow', nested: { text: 'x\x85y' }, status: 429 });
  log.info('plain', { detail: 'nothing to strip, "quoted" \\ and\nlines' });
  assert.equal(out.length, 2);
  for (const line of out) assert.doesNotMatch(line.slice(0, -1), /[\x00-\x1f\x7f-\x9f]|\\u00[01][0-9a-f]/, line);
  const first = JSON.parse(out[0]!);
  assert.equal(first.detail, 'throttled now');
  assert.equal(first.nested.text, 'xy');
  assert.equal(first.status, 429);
  assert.equal(JSON.parse(out[1]!).detail, 'nothing to strip, "quoted" \\ and\nlines');
});

test('the default logger writes one JSON object a line, info to stdout and errors to stderr, above its level', () => {
  const out: string[] = [];
  const err: string[] = [];
  const log = createJSONLogger({ level: 'info', stdout: { write: (l: string) => out.push(l) }, stderr: { write: (l: string) => err.push(l) } });
  log.debug('hidden');
  log.info('listening', { port: 1 });
  log.warn('careful');
  log.error('failed', { code: 'ERR_X' });
  assert.equal(out.length, 1);
  assert.equal(err.length, 2);
  const line = JSON.parse(out[0]!);
  assert.equal(line.level, 'info');
  assert.equal(line.msg, 'listening');
  assert.equal(line.port, 1);
  assert.ok(out[0]!.endsWith('\n'));
  assert.equal(JSON.parse(err[1]!).code, 'ERR_X');
  assert.throws(() => createJSONLogger({ level: 'loud' as never }), /level/);
  const debug = createJSONLogger({ level: 'debug', stdout: { write: (l: string) => out.push(l) } });
  debug.debug('shown');
  assert.equal(JSON.parse(out[1]!).msg, 'shown');
});

test('nothing about credentials or bodies reaches the access log', async (t) => {
  const { base, log } = await startApp(t, { apiKeys: ['topsecret-key'] }, (a) => a.post('/p', async (ctx) => ctx.json()));
  await call(base, '/p', { method: 'POST', headers: { authorization: 'Bearer topsecret-key', 'content-type': 'application/json' }, body: '{"ssn":"123-45-6789"}' });
  const text = JSON.stringify(log.lines);
  assert.ok(!text.includes('topsecret-key'));
  assert.ok(!text.includes('123-45-6789'));
});

test('ctx.log binds the request id; a reply the host cannot send cuts the connection and the server stays up', async (t) => {
  const gw = new FakeGateway({ routes: [{ method: 'GET', path: '/broken', handle: () => ({ status: 200, body: 42 as never }) }] });
  const { base, log } = await startApp(t, {}, (a) => {
    a.registerGateway(gw);
    a.get('/logs', (ctx) => {
      ctx.log.warn('custom line', { step: 1 });
      return 'ok';
    });
  });
  await call(base, '/logs', { headers: { 'x-request-id': 'log-1' } });
  const line = log.lines.find((l) => l.message === 'custom line');
  assert.deepEqual(line, { level: 'warn', message: 'custom line', fields: { request_id: 'log-1', step: 1 } });
  await assert.rejects(call(base, '/fhir/broken'), { code: 'ECONNRESET' });
  assert.equal((await call(base, '/logs')).status, 200);
});
