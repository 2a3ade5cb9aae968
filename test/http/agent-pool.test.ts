import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentPool } from '../../src/http/agent-pool.js';
import { startServer, until } from '../support/test-server.js';

test('maxConnections: 4 under 200 concurrent requests: the server never sees more than 4 sockets', async (t) => {
  const srv = await startServer(t, (_req, res) => setImmediate(() => res.end('ok')));
  const pool = new AgentPool({ maxConnections: 4 });
  t.after(() => pool.close());
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => pool.request(`${srv.url}/r/${i}`)));
  assert.equal(answers.length, 200);
  assert.ok(answers.every((r) => r.status === 200));
  assert.ok(srv.sockets.max <= 4, `saw ${srv.sockets.max} sockets`);
  assert.ok(srv.sockets.accepted <= 4, `accepted ${srv.sockets.accepted} sockets`);
  const status = pool.status();
  assert.deepEqual(status.totals, { active: 0, idle: status.totals.idle, queued: 0 });
  assert.ok(status.totals.idle >= 1 && status.totals.idle <= 4);
});

test('5,000 requests queued behind maxConnections: 4 all complete, FIFO, and the server never sees more than 4 sockets', async (t) => {
  const srv = await startServer(t, (_req, res) => setImmediate(() => res.end('ok')));
  const pool = new AgentPool({ maxConnections: 4 });
  t.after(() => pool.close());
  const answers = Array.from({ length: 5000 }, (_, i) => pool.request(`${srv.url}/r/${i}`, { timeoutMs: 600_000 }));
  const maxQueued = pool.status().totals.queued;
  const settled = await Promise.all(answers);
  assert.ok(settled.every((r) => r.status === 200 && r.body.toString() === 'ok'));
  assert.equal(srv.seen.length, 5000);
  assert.ok(maxQueued >= 4990, `queued ${maxQueued}`);
  assert.ok(srv.sockets.max <= 4, `saw ${srv.sockets.max} sockets`);
  assert.ok(srv.sockets.accepted <= 4, `accepted ${srv.sockets.accepted} sockets`);
  // FIFO: the queued requests reach the server in the order they were sent (4 sockets race only among the first few).
  const order = srv.seen.map((s) => Number(s.url.slice(3)));
  const late = order.filter((n, k) => Math.abs(n - k) > 4);
  assert.deepEqual(late, []);
  assert.deepEqual(pool.status().totals, { active: 0, idle: pool.status().totals.idle, queued: 0 });
});

test('waiters of several origins get new sockets in the order they came, whichever origin they wait for', async (t) => {
  const order: string[] = [];
  const handler = (name: string) => (req: { url?: string }, res: { end: (b: string) => void }) => {
    order.push(`${name}${req.url}`);
    setImmediate(() => res.end(name));
  };
  const a = await startServer(t, handler('a'));
  const b = await startServer(t, handler('b'));
  // One socket, never kept: every request after the first waits for a socket to close, then opens one.
  const pool = new AgentPool({ maxConnections: 1, maxKeepaliveConnections: 0 });
  t.after(() => pool.close());
  const sent = ['a/0', 'b/1', 'a/2', 'a/3', 'b/4', 'a/5', 'b/6', 'b/7'];
  const answers = await Promise.all(sent.map((p) => pool.request(`${(p[0] === 'a' ? a : b).url}${p.slice(1)}`)));
  assert.ok(answers.every((r) => r.status === 200));
  assert.deepEqual(order, sent);
  assert.equal(pool.status().totals.queued, 0);
});

test('queued requests that time out or are aborted leave the queue; the others still run in order', async (t) => {
  const release: (() => void)[] = [];
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/hold') release.push(() => res.end('held'));
    else res.end(req.url);
  });
  const pool = new AgentPool({ maxConnections: 1 });
  t.after(() => pool.close());
  const hold = pool.request(`${srv.url}/hold`);
  await until(() => release.length === 1, 'the held request');
  const controller = new AbortController();
  const aborted = pool.request(`${srv.url}/a`, { signal: controller.signal });
  const timedOut = pool.request(`${srv.url}/b`, { timeoutMs: 50 });
  const kept = [pool.request(`${srv.url}/c`), pool.request(`${srv.url}/d`)];
  assert.equal(pool.status().totals.queued, 4);
  controller.abort();
  await assert.rejects(aborted, { code: 'ERR_ABORTED' });
  await assert.rejects(timedOut, { code: 'ERR_TIMEOUT' });
  assert.equal(pool.status().totals.queued, 2);
  release[0]!();
  assert.equal((await hold).status, 200);
  assert.deepEqual((await Promise.all(kept)).map((r) => r.body.toString()), ['/c', '/d']);
  assert.deepEqual(srv.seen.map((s) => s.url), ['/hold', '/c', '/d']);
  assert.equal(pool.status().totals.queued, 0);
});

test('with the pool full, a queued request whose origin has an idle socket does not wait behind one that needs a new socket', async (t) => {
  const a = await startServer(t, (_req, res) => setImmediate(() => res.end('a')));
  const release: (() => void)[] = [];
  const b = await startServer(t, (req, res) => release.push(() => res.end(req.url)));
  const pool = new AgentPool({ maxConnections: 4 });
  t.after(() => pool.close());
  await Promise.all([1, 2, 3].map((i) => pool.request(`${a.url}/warm/${i}`)));
  assert.equal(pool.status().totals.idle, 3);
  const b1 = pool.request(`${b.url}/b1`);
  await until(() => release.length === 1, 'b1 at the server');
  // The pool is full (3 idle to a, 1 busy to b): b2 waits, and one idle socket of a is closed to make room.
  const b2 = pool.request(`${b.url}/b2`);
  const a4 = pool.request(`${a.url}/a4`);
  // a4 is answered while b1 is still held, on one of a's idle sockets.
  assert.equal((await a4).body.toString(), 'a');
  await until(() => release.length === 2, 'b2 at the server (on the room made for it)');
  for (const end of release) end();
  assert.deepEqual([(await b1).body.toString(), (await b2).body.toString()], ['/b1', '/b2']);
  assert.equal(a.sockets.accepted, 3, 'a4 reused an idle socket');
  assert.equal(pool.status().totals.queued, 0);
});

test('sequential requests reuse one keep-alive socket', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end('ok'));
  const pool = new AgentPool();
  t.after(() => pool.close());
  for (let i = 0; i < 20; i++) assert.equal((await pool.request(srv.url)).status, 200);
  assert.equal(srv.sockets.accepted, 1);
  assert.deepEqual(pool.status().origins, [{ origin: srv.url, active: 0, idle: 1, queued: 0 }]);
});

test('the cap spans origins: an idle socket of one origin is closed to make room for another', async (t) => {
  const a = await startServer(t, (_req, res) => res.end('a'));
  const b = await startServer(t, (_req, res) => setImmediate(() => res.end('b')));
  const pool = new AgentPool({ maxConnections: 2 });
  t.after(() => pool.close());
  // Counted on the client side: a server learns of a closed socket a moment after the client.
  let maxTogether = 0;
  const track = (): void => {
    const { active, idle } = pool.status().totals;
    maxTogether = Math.max(maxTogether, active + idle);
  };
  a.server.on('request', track);
  b.server.on('request', track);
  await Promise.all([pool.request(a.url), pool.request(a.url)]);
  assert.equal(pool.status().totals.idle, 2);
  const answers = await Promise.all(Array.from({ length: 10 }, () => pool.request(b.url)));
  assert.ok(answers.every((r) => r.body.toString() === 'b'));
  assert.ok(maxTogether <= 2, `saw ${maxTogether} sockets at once`);
  assert.ok(b.sockets.accepted >= 1 && b.sockets.accepted <= 2);
  await until(() => a.sockets.open === 0, "a's idle sockets to be closed for b");
});

test('an origin with requests in flight keeps its fair share of the cap: a waiter of another origin does not close its idle socket', async (t) => {
  const held: Array<() => void> = [];
  const hold = (name: string) => (req: { url?: string }, res: { end: (b: string) => void }) => {
    if (req.url === '/now') res.end(name);
    else held.push(() => res.end(name));
  };
  const a = await startServer(t, hold('a'));
  const b = await startServer(t, hold('b'));
  const pool = new AgentPool({ maxConnections: 4 });
  t.after(() => pool.close());
  // b: one request in flight, one socket idle; a: two requests in flight. The cap (4) is reached, and
  // each of the two busy origins holds its share (2).
  const bHeld = pool.request(`${b.url}/held`);
  await pool.request(`${b.url}/now`);
  const aHeld = [pool.request(`${a.url}/held`), pool.request(`${a.url}/held`)];
  await until(() => held.length === 3, 'three held requests');
  const third = pool.request(`${a.url}/now`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(pool.status().totals.queued, 1, 'the third request of a waits for one of its own sockets');
  assert.equal(b.sockets.open, 2, "b's idle socket stays open");
  for (const release of held.splice(0)) release();
  assert.equal((await third).body.toString(), 'a');
  await Promise.all([bHeld, ...aHeld]);
  assert.equal(a.sockets.accepted, 2, 'a reused its own sockets');
  assert.equal(b.sockets.accepted, 2);
});

test('idle sockets close after keepaliveExpiry', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end('ok'));
  const pool = new AgentPool({ keepaliveExpiry: 0.2 });
  t.after(() => pool.close());
  await pool.request(srv.url);
  assert.equal(pool.status().totals.idle, 1);
  await until(() => srv.sockets.open === 0, 'the idle socket to close');
  await until(() => pool.status().totals.idle === 0, 'the pool to forget it');
});

test('maxKeepaliveConnections: 0 keeps no idle socket', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end('ok'));
  const pool = new AgentPool({ maxKeepaliveConnections: 0 });
  t.after(() => pool.close());
  await pool.request(srv.url);
  await pool.request(srv.url);
  assert.equal(srv.sockets.accepted, 2);
  await until(() => srv.sockets.open === 0, 'sockets to close');
});

test('an aborted queued request and a failed one leak no slot', async (t) => {
  const held: (() => void)[] = [];
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/hold') held.push(() => res.end('held'));
    else if (req.url === '/drop') res.socket?.destroy();
    else res.end('ok');
  });
  const pool = new AgentPool({ maxConnections: 1 });
  t.after(() => pool.close());
  const first = pool.request(`${srv.url}/hold`);
  await until(() => held.length === 1, 'the first request to arrive');
  const controller = new AbortController();
  const second = pool.request(`${srv.url}/x`, { signal: controller.signal });
  assert.equal(pool.status().totals.queued, 1);
  controller.abort();
  await assert.rejects(second, { code: 'ERR_ABORTED' });
  assert.equal(pool.status().totals.queued, 0);
  await assert.rejects(pool.request(`${srv.url}/x`, { signal: AbortSignal.abort() }), { code: 'ERR_ABORTED' });
  const timed = pool.request(`${srv.url}/x`, { timeoutMs: 50 });
  await assert.rejects(timed, { code: 'ERR_TIMEOUT' });
  held[0]?.();
  assert.equal((await first).body.toString(), 'held');
  await assert.rejects(pool.request(`${srv.url}/drop`, { method: 'POST' }), { code: 'ERR_NETWORK' });
  const after = await Promise.all([pool.request(`${srv.url}/y`), pool.request(`${srv.url}/z`)]);
  assert.deepEqual(after.map((r) => r.body.toString()), ['ok', 'ok']);
  assert.equal(srv.seen.filter((s) => s.url === '/x').length, 0);
});

test('a request that fails on a reused socket is sent once more on a new socket, a POST too', async (t) => {
  const perSocket = new Map<unknown, number>();
  const srv = await startServer(t, (req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (n === 2) req.socket.destroy();
    else res.end('ok');
  });
  const pool = new AgentPool();
  t.after(() => pool.close());
  await pool.request(srv.url);
  assert.equal((await pool.request(srv.url)).status, 200);
  assert.equal(srv.sockets.accepted, 2);
  const post = await pool.request(srv.url, { method: 'POST', body: 'x' });
  assert.equal(post.status, 200);
  assert.equal(srv.sockets.accepted, 3);
});

test('close lets requests in flight finish, then refuses new ones; it is idempotent', async (t) => {
  let release!: () => void;
  const srv = await startServer(t, (_req, res) => (release = () => res.end('late')));
  const pool = new AgentPool();
  const pending = pool.request(srv.url);
  await until(() => srv.seen.length === 1, 'the request to arrive');
  const closed = pool.close();
  assert.equal(pool.close(), closed);
  await assert.rejects(pool.request(srv.url), { code: 'ERR_CLOSED' });
  release();
  assert.equal((await pending).body.toString(), 'late');
  await closed;
  await until(() => srv.sockets.open === 0, 'sockets to close');
});

test('retire closes the connections of one origin', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end('ok'));
  const pool = new AgentPool();
  t.after(() => pool.close());
  await pool.request(srv.url);
  pool.retire(srv.url);
  pool.retire('http://127.0.0.1:1');
  await until(() => srv.sockets.open === 0, 'the socket to close');
  assert.deepEqual(pool.status().origins, []);
  await pool.request(srv.url);
  assert.equal(srv.sockets.accepted, 2);
});

test('bad pool options throw TypeError or RangeError naming the option', () => {
  assert.throws(() => new AgentPool({ maxConnections: 0 }), /maxConnections/);
  assert.throws(() => new AgentPool({ maxConnections: 1.5 }), RangeError);
  assert.throws(() => new AgentPool({ maxKeepaliveConnections: -1 }), RangeError);
  assert.throws(() => new AgentPool({ keepaliveExpiry: 0 }), /keepaliveExpiry/);
  assert.throws(() => new AgentPool({ keepaliveExpiry: 'x' as unknown as number }), TypeError);
  assert.throws(() => new AgentPool(null as never), TypeError);
  const pool = new AgentPool();
  assert.deepEqual(pool.status().limits, { maxConnections: 100, maxKeepaliveConnections: 20, keepaliveExpiry: 5 });
});

test('one signal shared by 30 requests, some sent and some queued: no listener warning, and its abort ends every one and nothing else', async (t) => {
  const held: (() => void)[] = [];
  const srv = await startServer(t, (req, res) => (req.url === '/other' ? res.end('other') : held.push(() => res.end('late'))));
  const pool = new AgentPool({ maxConnections: 10 });
  t.after(() => pool.close());
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => void warnings.push(w);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const controller = new AbortController();
  const shared = Array.from({ length: 30 }, (_, i) => pool.request(`${srv.url}/s/${i}`, { signal: controller.signal }));
  const other = pool.request(`${srv.url}/other`, { signal: new AbortController().signal });
  await until(() => held.length === 10, 'ten requests to arrive');
  assert.equal(pool.status().totals.queued, 21);
  controller.abort();
  const settled = await Promise.allSettled(shared);
  assert.deepEqual(new Set(settled.map((s) => s.status === 'rejected' && (s.reason as { code?: string }).code)), new Set(['ERR_ABORTED']));
  assert.equal((await other).body.toString(), 'other');
  assert.equal(srv.seen.filter((s) => s.url.startsWith('/s/')).length, 10);
  assert.deepEqual(warnings.map((w) => w.name), []);
});
