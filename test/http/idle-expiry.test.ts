import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { AgentPool } from '../../src/http/agent-pool.js';
import { startServer, until } from '../support/test-server.js';
import type { TestServer } from '../support/test-server.js';

test('an idle socket expires after keepaliveExpiry from one second on (the shared tick), and a socket in use never does', async (t) => {
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/slow') setTimeout(() => res.end('slow'), 2500);
    else res.end('ok');
  });
  srv.server.keepAliveTimeout = 60_000;
  const pool = new AgentPool({ keepaliveExpiry: 1.2 });
  t.after(() => pool.close());
  await pool.request(srv.url);
  assert.equal(pool.status().totals.idle, 1);
  // The same socket is taken again at once and kept busy for longer than keepaliveExpiry: its idle timer must be stopped.
  const slow = await pool.request(`${srv.url}/slow`);
  assert.equal(slow.body.toString(), 'slow');
  assert.equal(srv.sockets.accepted, 1, 'the slow request reused the idle socket');
  assert.equal(srv.sockets.open, 1, 'the socket survived a request longer than keepaliveExpiry');
  await until(() => srv.sockets.open === 0, 'the idle socket to close');
  await until(() => pool.status().totals.idle === 0, 'the pool to forget it');
});

/** A server that keeps idle connections for a minute but announces `timeout=<seconds>`, and a pool that would keep them 300 s. */
async function announcing(t: TestContext, seconds: number): Promise<{ srv: TestServer; pool: AgentPool }> {
  const srv = await startServer(t, (_req, res) => {
    res.setHeader('keep-alive', `timeout=${seconds}`);
    res.end('ok');
  });
  srv.server.keepAliveTimeout = 60_000;
  const pool = new AgentPool({ keepaliveExpiry: 300 });
  t.after(() => pool.close());
  return { srv, pool };
}

test("the server's Keep-Alive: timeout=N shortens the idle expiry to N - 1 s", async (t) => {
  // Only the client can close the socket within the test's wait.
  const { srv, pool } = await announcing(t, 2);
  await pool.request(srv.url);
  assert.equal(pool.status().totals.idle, 1);
  await until(() => srv.sockets.open === 0, 'the client to close the idle socket before the announced time-out', 10_000);
  assert.equal(pool.status().totals.idle, 0);
});

test('a server Keep-Alive: timeout=1 is too short to reuse: the socket is closed at once', async (t) => {
  const { srv, pool } = await announcing(t, 1);
  await pool.request(srv.url);
  await pool.request(srv.url);
  assert.equal(srv.sockets.accepted, 2, 'each request opened its own connection');
});
