import assert from 'node:assert/strict';
import diagnostics_channel from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { request } from '../../src/http/request.js';
import { USER_AGENT } from '../../src/http/user-agent.js';
import { freePort } from '../support/free-port.js';
import { startServer } from '../support/test-server.js';
import { join } from 'node:path';
import { ROOT } from '../support/code-tree.js';

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

test('sends the method, headers, body and fhirgate User-Agent, and buffers the answer', async (t) => {
  const srv = await startServer(t, (_req, res, body) => {
    res.writeHead(201, { 'content-type': 'application/json', 'x-echo': body.length.toString() });
    res.end(JSON.stringify({ got: body }));
  });
  const res = await request(`${srv.url}/a/b?x=1`, { method: 'post', headers: { Accept: 'application/json' }, body: 'héllo' });
  assert.equal(res.status, 201);
  assert.equal(res.headers['x-echo'], '5');
  assert.deepEqual(JSON.parse(res.body.toString()), { got: 'héllo' });
  const seen = srv.seen[0];
  assert.ok(seen);
  assert.equal(seen.method, 'POST');
  assert.equal(seen.url, '/a/b?x=1');
  assert.equal(seen.headers['user-agent'], `fhirgate/${version}`);
  assert.equal(USER_AGENT, `fhirgate/${version}`);
  assert.equal(seen.headers['content-length'], String(Buffer.byteLength('héllo')));
  assert.equal(seen.headers.accept, 'application/json');
});

test('never follows a redirect', async (t) => {
  const srv = await startServer(t, (_req, res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
    res.end();
  });
  const res = await request(`${srv.url}/start`);
  assert.equal(res.status, 302);
  assert.equal(srv.seen.length, 1);
});

test('rejects an answer larger than maxResponseBytes, declared or streamed', async (t) => {
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': '100' });
      res.end('x'.repeat(100));
    } else {
      res.writeHead(200);
      res.write('x'.repeat(60));
      res.end('y'.repeat(60));
    }
  });
  await assert.rejects(request(`${srv.url}/declared`, { maxResponseBytes: 50 }), { code: 'ERR_RESPONSE_TOO_LARGE' });
  await assert.rejects(request(`${srv.url}/chunked`, { maxResponseBytes: 100 }), { code: 'ERR_RESPONSE_TOO_LARGE' });
  const ok = await request(`${srv.url}/chunked`, { maxResponseBytes: 120 });
  assert.equal(ok.body.length, 120);
});

test('times out with ERR_TIMEOUT when the server never answers', async (t) => {
  const srv = await startServer(t, () => {});
  const err = await request(srv.url, { timeoutMs: 100 }).catch((e: unknown) => e);
  assert.equal((err as { code?: string }).code, 'ERR_TIMEOUT');
  assert.ok((err as Error).cause instanceof Error);
});

test('a signal whose reason is a TimeoutError gives ERR_TIMEOUT', async (t) => {
  const srv = await startServer(t, () => {});
  await assert.rejects(request(srv.url, { signal: AbortSignal.timeout(50) }), { code: 'ERR_TIMEOUT' });
});

test('aborts with ERR_ABORTED, before or during the request', async (t) => {
  let arrived!: () => void;
  const got = new Promise<void>((r) => (arrived = r));
  const srv = await startServer(t, () => arrived());
  await assert.rejects(request(srv.url, { signal: AbortSignal.abort() }), { code: 'ERR_ABORTED' });
  assert.equal(srv.seen.length, 0);
  const controller = new AbortController();
  const pending = request(srv.url, { signal: controller.signal });
  await got;
  controller.abort();
  await assert.rejects(pending, { code: 'ERR_ABORTED' });
});

test('maps a refused connection and a dropped answer to ERR_NETWORK with the cause', async (t) => {
  const refused = await request(`http://127.0.0.1:${await freePort()}/`).catch((e: unknown) => e);
  assert.equal((refused as { code?: string }).code, 'ERR_NETWORK');
  assert.equal(((refused as Error).cause as { code?: string }).code, 'ECONNREFUSED');

  const srv = await startServer(t, (_req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('partial');
    setImmediate(() => res.socket?.destroy());
  });
  await assert.rejects(request(srv.url), { code: 'ERR_NETWORK' });
});

test('misuse throws TypeError or RangeError naming the option', () => {
  assert.throws(() => request('not a url'), TypeError);
  assert.throws(() => request('ftp://example.org/'), /http: or https:/);
  assert.throws(() => request('http://127.0.0.1/', { method: 'BAD METHOD' }), /options\.method/);
  assert.throws(() => request('http://127.0.0.1/', { timeoutMs: -1 }), RangeError);
  assert.throws(() => request('http://127.0.0.1/', { timeoutMs: 'x' as unknown as number }), /options\.timeoutMs/);
  assert.throws(() => request('http://127.0.0.1/', { maxResponseBytes: Infinity }), /options\.maxResponseBytes/);
  assert.throws(() => request('http://127.0.0.1/', { headers: { a: 1 as unknown as string } }), /options\.headers/);
  assert.throws(() => request('http://127.0.0.1/', { headers: { a: 'x\r\nb: y' } }), /options\.headers\["a"\]/);
  assert.throws(() => request('http://127.0.0.1/', { body: 5 as unknown as string }), /options\.body/);
  assert.throws(() => request('http://127.0.0.1/', { signal: {} as AbortSignal }), /options\.signal/);
  assert.throws(() => request('http://127.0.0.1/', null as never), /options must be an object/);
});

test('publishes start and end on diagnostics_channel without query string or headers', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end('ok'));
  const messages: { name: string; m: Record<string, unknown> }[] = [];
  const onStart = (m: unknown): void => void messages.push({ name: 'start', m: m as Record<string, unknown> });
  const onEnd = (m: unknown): void => void messages.push({ name: 'end', m: m as Record<string, unknown> });
  diagnostics_channel.subscribe('fhirgate:request:start', onStart);
  diagnostics_channel.subscribe('fhirgate:request:end', onEnd);
  t.after(() => {
    diagnostics_channel.unsubscribe('fhirgate:request:start', onStart);
    diagnostics_channel.unsubscribe('fhirgate:request:end', onEnd);
  });
  await request(`${srv.url}/Patient?name=Secretname`, { headers: { authorization: 'Bearer tok-123' } });
  const mine = messages.filter((x) => x.m.origin === srv.url);
  assert.deepEqual(mine.map((x) => x.name), ['start', 'end']);
  assert.deepEqual(mine[0]?.m, { method: 'GET', origin: srv.url, path: '/Patient' });
  assert.equal(mine[1]?.m.status, 200);
  const text = JSON.stringify(mine);
  assert.ok(!text.includes('Secretname') && !text.includes('tok-123'));
});
