import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentPool } from '../../src/http/agent-pool.js';
import { checkHeaders, checkRequestOptions } from '../../src/http/request-options.js';
import { request } from '../../src/http/request.js';
import { declaredLength } from '../../src/http/buffered-response.js';
import { Deadline, timeoutError } from '../../src/http/deadline.js';
import { startServer, until } from '../support/test-server.js';

test('pool.sendChecked takes checked options as they are: headers, default User-Agent, Content-Length, body', async (t) => {
  const srv = await startServer(t, (_req, res) => res.writeHead(201, { etag: 'W/"3"' }).end('made'));
  const pool = new AgentPool();
  t.after(() => pool.close());
  const checked = checkRequestOptions({ method: 'POST', headers: { 'X-One': '1' }, body: 'héllo' });
  const res = await pool.sendChecked(new URL(`${srv.url}/p?q=1`), checked);
  assert.equal(res.status, 201);
  assert.equal(res.body.toString(), 'made');
  assert.equal(res.headers.etag, 'W/"3"');
  const seen = srv.seen[0]!;
  assert.equal(seen.method, 'POST');
  assert.equal(seen.url, '/p?q=1');
  assert.equal(seen.headers['x-one'], '1');
  assert.match(String(seen.headers['user-agent']), /^fhirgate\//);
  assert.equal(seen.headers['content-length'], String(Buffer.byteLength('héllo')));
  assert.equal(seen.body, 'héllo');
  await pool.sendChecked(new URL(srv.url), checkRequestOptions({ headers: { 'User-Agent': 'mine/1' } }));
  assert.equal(srv.seen[1]!.headers['user-agent'], 'mine/1');
});

test('the header block: Host with the port, a given Authorization over URL credentials, Content-Length 0 for a POST without a body (never chunked)', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end('ok'));
  const withCredentials = srv.url.replace('http://', 'http://us:pw@');
  await request(withCredentials, { method: 'POST' });
  await request(withCredentials, { method: 'DELETE', headers: { Authorization: 'Bearer t' } });
  const [post, del] = srv.seen;
  assert.equal(post!.headers.host, new URL(srv.url).host);
  assert.equal(post!.headers['content-length'], '0');
  assert.equal(post!.headers['transfer-encoding'], undefined);
  assert.equal(post!.headers.authorization, `Basic ${Buffer.from('us:pw').toString('base64')}`);
  assert.equal(del!.headers.authorization, 'Bearer t');
  assert.equal(del!.headers['content-length'], undefined);
  assert.equal(del!.headers['transfer-encoding'], undefined);
});

test('a body that comes in several chunks is joined; an empty one is an empty Buffer', async (t) => {
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/empty') return void res.writeHead(204).end();
    res.write('a'.repeat(100));
    setImmediate(() => res.end('b'.repeat(100)));
  });
  const many = await request(`${srv.url}/many`);
  assert.equal(many.body.toString(), 'a'.repeat(100) + 'b'.repeat(100));
  const empty = await request(`${srv.url}/empty`);
  assert.equal(empty.status, 204);
  assert.equal(empty.body.length, 0);
});

test('credentials in the URL are sent as Basic authorization', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end('ok'));
  await request(srv.url.replace('http://', 'http://us%40er:p%3Ass@'));
  assert.equal(srv.seen[0]!.headers.authorization, `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
});

test('the time-out of a request waiting for a socket is ERR_TIMEOUT with a TimeoutError cause, and frees its place', async (t) => {
  let hold: (() => void) | undefined;
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/slow') hold = () => res.end('slow');
    else res.end('ok');
  });
  const pool = new AgentPool({ maxConnections: 1 });
  t.after(() => pool.close());
  const slow = pool.request(`${srv.url}/slow`, { timeoutMs: 60_000 });
  await until(() => hold !== undefined, 'the slow request to arrive');
  const waiting = pool.request(`${srv.url}/fast`, { timeoutMs: 50 });
  const err = await waiting.then(() => undefined, (e: unknown) => e as Error & { code?: string; cause?: unknown });
  assert.equal(err?.code, 'ERR_TIMEOUT');
  assert.match(String(err?.message), /waiting for a connection/);
  assert.equal((err?.cause as Error).name, 'TimeoutError');
  assert.equal(pool.status().totals.queued, 0);
  hold?.();
  assert.equal((await slow).body.toString(), 'slow');
  assert.equal((await pool.request(`${srv.url}/fast`)).body.toString(), 'ok');
});

test('a caller abort while waiting for a socket is ERR_ABORTED and frees its place', async (t) => {
  let hold: (() => void) | undefined;
  const srv = await startServer(t, (_req, res) => (hold = () => res.end('x')));
  const pool = new AgentPool({ maxConnections: 1 });
  t.after(() => pool.close());
  const first = pool.request(srv.url);
  await until(() => hold !== undefined, 'the first request to arrive');
  const controller = new AbortController();
  const queued = pool.request(srv.url, { signal: controller.signal });
  assert.equal(pool.status().totals.queued, 1);
  controller.abort();
  await assert.rejects(queued, { code: 'ERR_ABORTED', message: /waiting for a connection/ });
  assert.equal(pool.status().totals.queued, 0);
  hold?.();
  assert.equal((await first).status, 200);
  await assert.rejects(pool.request(srv.url, { signal: AbortSignal.abort() }), { code: 'ERR_ABORTED' });
});

test('Deadline: remaining, over, error, and arm/disarm call the listener for an abort or the time-out', async () => {
  const none = new Deadline(undefined, Infinity);
  assert.equal(none.remaining(), Infinity);
  assert.equal(none.over(), false);
  assert.equal(none.arm({ handleEvent: () => assert.fail('never called') }), undefined);
  const spent = new Deadline(undefined, 0.001);
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(spent.over(), true);
  assert.equal(spent.error('GET x').code, 'ERR_TIMEOUT');
  const controller = new AbortController();
  const live = new Deadline(controller.signal, 60_000);
  assert.ok(live.remaining() > 59_000 && live.remaining() <= 60_000);
  let calls = 0;
  const listener = { handleEvent: () => void calls++ };
  const timer = live.arm(listener);
  controller.abort();
  assert.equal(calls, 1);
  assert.equal(live.over(), true);
  assert.equal(live.error('GET x').code, 'ERR_ABORTED');
  live.disarm(timer, listener);
  const timed = new Deadline(undefined, 10);
  const fired = await new Promise<number>((resolve) => timed.arm({ handleEvent: () => resolve(1) }));
  assert.equal(fired, 1);
  const err = timeoutError('GET https://h/x');
  assert.equal(err.message, 'GET https://h/x timed out');
  assert.equal((err.cause as Error).name, 'TimeoutError');
});

test('declaredLength reads Content-Length from the raw list, case-insensitively; NaN when absent', () => {
  assert.equal(declaredLength(['Content-Type', 'text/plain', 'content-LENGTH', '12']), 12);
  assert.ok(Number.isNaN(declaredLength(['Content-Type', 'text/plain'])));
});

test('checkHeaders lower-cases names and refuses bad names and values', () => {
  assert.deepEqual({ ...checkHeaders({ 'If-Match': 'W/"2"' }) }, { 'if-match': 'W/"2"' });
  assert.throws(() => checkHeaders({ 'bad name': 'x' }), { name: 'TypeError', message: /bad name/ });
  assert.throws(() => checkHeaders({ ok: 'a\r\nb' }), { name: 'TypeError' });
  assert.throws(() => checkHeaders({ ok: 'a\x01b' }), { name: 'TypeError', message: /ok/ });
  assert.throws(() => request('http://127.0.0.1:1/', { headers: { ok: 'a\x7fb' } }), { name: 'TypeError' });
  assert.deepEqual({ ...checkHeaders({ ok: 'tab\there, é' }) }, { ok: 'tab\there, é' });
  assert.throws(() => checkHeaders(null as never), { name: 'TypeError', message: /options\.headers/ });
});

test('pool.sendChecked after close rejects with ERR_CLOSED', async () => {
  const pool = new AgentPool();
  await pool.close();
  await assert.rejects(pool.sendChecked(new URL('http://127.0.0.1:1/'), checkRequestOptions({})), { code: 'ERR_CLOSED' });
});
