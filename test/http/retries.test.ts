import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { AgentPool } from '../../src/http/agent-pool.js';
import { request } from '../../src/http/request.js';
import { dropIdleSockets } from '../../src/http/idle-sockets.js';
import { pause } from '../../src/http/signals.js';
import { freePort } from '../support/free-port.js';
import { retryMessages } from '../support/retry-messages.js';
import { startServer, until } from '../support/test-server.js';

/** Answers the listed statuses in turn, then 200. */
async function scripted(t: TestContext, statuses: number[], headers: Record<string, string> = {}) {
  let n = 0;
  return startServer(t, (_req, res) => {
    const status = statuses[n++] ?? 200;
    res.writeHead(status, status === 200 ? {} : headers);
    res.end(status === 200 ? 'ok' : 'busy');
  });
}

const fast = { retryBaseDelayMs: 1, maxRetryDelayMs: 5 };

test('an idempotent request is retried on 429, 502, 503 and 504 and gets the final answer', async (t) => {
  const srv = await scripted(t, [429, 502, 503, 504]);
  const res = await request(srv.url, { ...fast, maxRetries: 4 });
  assert.equal(res.status, 200);
  assert.equal(srv.seen.length, 5);
  for (const method of ['PUT', 'DELETE', 'HEAD']) {
    const s = await scripted(t, [503]);
    assert.equal((await request(s.url, { ...fast, method })).status, 200, method);
    assert.equal(s.seen.length, 2, method);
  }
});

test('503 three times with maxRetries 2: the caller gets the third 503 after exactly 3 requests', async (t) => {
  const srv = await scripted(t, [503, 503, 503, 503]);
  const pool = new AgentPool();
  t.after(() => pool.close());
  const res = await pool.request(srv.url, { ...fast, maxRetries: 2 });
  assert.equal(res.status, 503);
  assert.equal(res.body.toString(), 'busy');
  assert.equal(srv.seen.length, 3);
});

test('a plain POST is never retried on a status; a POST with If-None-Exist is', async (t) => {
  const plain = await scripted(t, [503, 429]);
  assert.equal((await request(plain.url, { ...fast, method: 'POST', body: '{}' })).status, 503);
  assert.equal(plain.seen.length, 1);
  const conditional = await scripted(t, [503]);
  const res = await request(conditional.url, { ...fast, method: 'POST', body: '{}', headers: { 'If-None-Exist': 'identifier=a|1' } });
  assert.equal(res.status, 200);
  assert.equal(conditional.seen.length, 2);
});

test('retry: false, maxRetries: 0 and retryOn change what is retried', async (t) => {
  const off = await scripted(t, [503]);
  assert.equal((await request(off.url, { ...fast, retry: false })).status, 503);
  assert.equal(off.seen.length, 1);
  const zero = await scripted(t, [503]);
  assert.equal((await request(zero.url, { ...fast, maxRetries: 0 })).status, 503);
  assert.equal(zero.seen.length, 1);
  const custom = await scripted(t, [500, 503]);
  assert.equal((await request(custom.url, { ...fast, retryOn: [500] })).status, 503);
  assert.equal(custom.seen.length, 2);
});

test('Retry-After is capped by maxRetryDelayMs', async (t) => {
  const srv = await scripted(t, [429], { 'retry-after': '3600' });
  const res = await request(srv.url, { retryBaseDelayMs: 1, maxRetryDelayMs: 20, timeoutMs: 20_000 });
  assert.equal(res.status, 200);
  assert.equal(srv.seen.length, 2);
});

test('a wait that would outlive the deadline is not started: the last answer comes back at once', async (t) => {
  const srv = await scripted(t, [503, 503], { 'retry-after': '20' });
  const seen = retryMessages(t, srv.url);
  const res = await request(srv.url, { maxRetryDelayMs: 60_000, timeoutMs: 10_000 });
  assert.equal(res.status, 503);
  assert.equal(srv.seen.length, 1);
  assert.equal(seen.length, 0);
});

test('an abort during a backoff wait rejects with ERR_ABORTED at once, and nothing more is sent', async (t) => {
  const srv = await scripted(t, [503, 503], { 'retry-after': '30' });
  const seen = retryMessages(t, srv.url);
  const controller = new AbortController();
  const pending = request(srv.url, { signal: controller.signal, maxRetryDelayMs: 60_000, timeoutMs: 120_000 });
  await until(() => seen.length === 1, 'the retry wait to start');
  assert.equal(seen[0]?.delayMs, 30_000);
  assert.equal(seen[0]?.status, 503);
  const started = Date.now();
  controller.abort();
  await assert.rejects(pending, { code: 'ERR_ABORTED', message: /waiting to retry/ });
  assert.ok(Date.now() - started < 20_000, 'long before the 30 s wait ends');
  assert.equal(srv.seen.length, 1);
});

test('a refused connection is retried, a POST too (nothing reached a server), then ERR_NETWORK', async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const seen = retryMessages(t, url);
  await assert.rejects(request(url, fast), { code: 'ERR_NETWORK', message: /ECONNREFUSED/ });
  assert.equal(seen.length, 2);
  assert.deepEqual(seen.map((m) => [m.attempt, m.error]), [[2, 'ERR_NETWORK'], [3, 'ERR_NETWORK']]);
  await assert.rejects(request(url, { ...fast, method: 'POST', body: 'x' }), { code: 'ERR_NETWORK' });
  assert.equal(seen.length, 4);
});

test('a reset before any answer on a new socket: a GET is retried, a POST is not', async (t) => {
  let drop = 0;
  const srv = await startServer(t, (req, res) => {
    if (drop-- > 0) req.socket.destroy();
    else res.end('ok');
  });
  const pool = new AgentPool({ maxKeepaliveConnections: 0 });
  t.after(() => pool.close());
  drop = 1;
  assert.equal((await pool.request(srv.url, fast)).status, 200);
  assert.equal(srv.seen.length, 2);
  drop = 1;
  await assert.rejects(pool.request(srv.url, { ...fast, method: 'POST', body: 'x' }), { code: 'ERR_NETWORK' });
  assert.equal(srv.seen.length, 3);
});

test('an answer cut short in the middle of its body is ERR_NETWORK and is not retried', async (t) => {
  const srv = await startServer(t, (req, res) => {
    res.writeHead(200, { 'content-length': '1000' });
    res.write('x'.repeat(100), () => setImmediate(() => req.socket.destroy()));
  });
  await assert.rejects(request(srv.url, fast), { code: 'ERR_NETWORK', message: /middle of the answer/ });
  assert.equal(srv.seen.length, 1);
});

test('stale keep-alive sockets: a server that closes each socket right after answering loses no request, and runs each POST once', async (t) => {
  const processed: string[] = [];
  const srv = await startServer(t, (req, res, body) => {
    processed.push(body);
    res.end('ok', () => req.socket.destroy());
  });
  srv.server.keepAliveTimeout = 1;
  const pool = new AgentPool();
  t.after(() => pool.close());
  for (let i = 0; i < 30; i++) {
    const res = await pool.request(srv.url, { method: 'POST', body: `post-${i}`, retry: false });
    assert.equal(res.status, 200);
  }
  assert.deepEqual(processed, Array.from({ length: 30 }, (_, i) => `post-${i}`));
});

test('request() replaces a stale socket of its agent once: the retry goes on a new socket', async (t) => {
  const perSocket = new Map<unknown, number>();
  const srv = await startServer(t, (req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (n === 2) req.socket.destroy();
    else res.end('ok');
  });
  const agent = new http.Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const seen = retryMessages(t, srv.url);
  await request(srv.url, { agent });
  const res = await request(srv.url, { agent, method: 'POST', body: 'x', retry: false });
  assert.equal(res.status, 200);
  assert.equal(srv.sockets.accepted, 2);
  assert.deepEqual(seen.map((m) => [m.attempt, m.delayMs]), [[2, 0]]);
  assert.deepEqual(srv.seen.map((s) => s.method), ['GET', 'POST', 'POST']);
});

test('pause rejects at once for an aborted signal; dropIdleSockets closes only the idle sockets of that host and port', async () => {
  await assert.rejects(pause(60_000, AbortSignal.abort(), 'GET x'), { code: 'ERR_ABORTED' });
  await assert.rejects(pause(60_000, AbortSignal.timeout(1), 'GET x'), { code: 'ERR_TIMEOUT' });
  const destroyed: string[] = [];
  const fake = (name: string) => ({ destroy: () => void destroyed.push(name) });
  const agent = new http.Agent();
  Object.assign(agent.freeSockets, {
    'example.org:80:': [fake('http'), fake('http-2')],
    'example.org:443:': [fake('https')],
    'example.org:8080:': [fake('other port')],
    'example.net:80:': [fake('other host')],
    '::1:80:': [fake('ipv6')],
  });
  dropIdleSockets(agent, new URL('http://example.org/fhir'));
  dropIdleSockets(agent, new URL('https://example.org/fhir'));
  dropIdleSockets(agent, new URL('http://[::1]/fhir'));
  assert.deepEqual(destroyed, ['http', 'http-2', 'https', 'ipv6']);
});
