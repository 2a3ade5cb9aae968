import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentPool } from '../../src/http/index.js';
import { startServer, until } from './test-server.js';

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
  assert.throws(() => new AgentPool({ maxConnections: 1.5 }), TypeError);
  assert.throws(() => new AgentPool({ maxKeepaliveConnections: -1 }), RangeError);
  assert.throws(() => new AgentPool({ keepaliveExpiry: 0 }), /keepaliveExpiry/);
  assert.throws(() => new AgentPool({ keepaliveExpiry: 'x' as unknown as number }), TypeError);
  assert.throws(() => new AgentPool(null as never), TypeError);
  const pool = new AgentPool();
  assert.deepEqual(pool.status().limits, { max_connections: 100, max_keepalive_connections: 20, keepalive_expiry: 5 });
});
