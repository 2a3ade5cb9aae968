/** The test cluster's signals as real processes: SIGTERM, SIGINT to the process group, SIGHUP, and the stop time-out. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call } from '../support/host-helpers.js';
import { healthPids, startCluster, startGate } from './helpers.js';

test('SIGTERM: every request in flight is answered, then the primary exits 0', async (t) => {
  const gate = await startGate(t);
  const cluster = startCluster(t, { WORKERS: '2', GATE_URL: gate.url });
  const { base } = await cluster.ready();
  const slow = Array.from({ length: 4 }, () => call(base, '/slow'));
  await gate.arrived(4);
  const from = cluster.lines.length;
  cluster.child.kill('SIGTERM');
  // Both workers have stopped accepting and wait for their requests in flight.
  const shuttingDown = () => cluster.lines.slice(from).filter((l) => l.msg === 'shutting down');
  await cluster.waitFor(() => shuttingDown().length === 2, from);
  assert.equal(shuttingDown().reduce((sum, l) => sum + (l['in_flight'] as number), 0), 4, 'the four requests are in flight in the workers');
  gate.open();
  for (const res of await Promise.all(slow)) {
    assert.equal(res.status, 200);
    assert.deepEqual(res.json(), { gate: 'open' });
    assert.equal(res.headers['connection'], 'close');
  }
  assert.equal(await cluster.exited, 0);
  const closed = await cluster.waitFor((l) => l.msg === 'cluster closed');
  assert.equal(closed['clean'], true);
  await assert.rejects(call(base, '/health'), { code: 'ECONNREFUSED' });
});

test('SIGTERM while a worker is still starting stops it and exits 0', async (t) => {
  const cluster = startCluster(t, { WORKERS: '1', APP: 'hangs' });
  await cluster.waitFor((l) => l.msg === 'cluster starting');
  cluster.child.kill('SIGTERM');
  assert.equal(await cluster.exited, 0);
  assert.equal(cluster.lines.filter((l) => l.msg === 'worker stopped').length, 1);
  assert.deepEqual(cluster.lines.find((l) => l.msg === 'cluster closed')?.['clean'], true);
});

test('a worker that does not stop within stopTimeoutMs is killed, and the primary exits 1', async (t) => {
  const gate = await startGate(t);
  const cluster = startCluster(t, { WORKERS: '1', GATE_URL: gate.url, STOP_TIMEOUT_MS: '300' });
  const { base } = await cluster.ready();
  const stuck = call(base, '/slow').then(() => 'answered', (error: NodeJS.ErrnoException) => error.code);
  await gate.arrived(1);
  cluster.child.kill('SIGTERM');
  assert.equal(await cluster.exited, 1);
  const killed = await cluster.waitFor((l) => l.msg === 'worker did not stop in time; killing it');
  assert.equal(killed['stop_timeout_ms'], 300);
  assert.equal(cluster.lines.find((l) => l.msg === 'cluster closed')?.['clean'], false);
  assert.equal(await stuck, 'ECONNRESET', 'the request the killed worker held is cut, not answered');
});

test('Ctrl-C (SIGINT to the whole process group) drains primary and workers alike: requests in flight answered, exit 0', async (t) => {
  const gate = await startGate(t);
  const cluster = startCluster(t, { WORKERS: '2', GATE_URL: gate.url }, { ownProcessGroup: true });
  const { base } = await cluster.ready();
  const slow = Array.from({ length: 2 }, () => call(base, '/slow'));
  await gate.arrived(2);
  const from = cluster.lines.length;
  process.kill(-cluster.child.pid!, 'SIGINT');
  await cluster.waitFor(() => cluster.lines.slice(from).filter((l) => l.msg === 'shutting down').length === 2, from);
  gate.open();
  for (const res of await Promise.all(slow)) assert.deepEqual([res.status, res.json()], [200, { gate: 'open' }]);
  assert.equal(await cluster.exited, 0);
  assert.deepEqual(cluster.lines.filter((l) => l.msg === 'worker stopped').map((l) => l['code']), [0, 0]);
  assert.ok(!cluster.lines.some((l) => l.msg === 'worker died'));
});

test('SIGHUP replaces every worker one at a time; requests in flight and new ones all succeed', async (t) => {
  const gate = await startGate(t);
  const cluster = startCluster(t, { WORKERS: '2', GATE_URL: gate.url });
  const { base, workers } = await cluster.ready();
  const slow = [call(base, '/slow'), call(base, '/slow')];
  await gate.arrived(2);
  let stop = false;
  const outcomes = { ok: 0, failed: [] as string[] };
  const load = Array.from({ length: 4 }, async () => {
    while (!stop) {
      try {
        // A hung request would hang the test: after 20 s it counts as a failure instead.
        const res = await call(base, '/', { signal: AbortSignal.timeout(20_000) });
        if (res.status === 200) outcomes.ok += 1;
        else outcomes.failed.push(`status ${res.status}`);
      } catch (error) {
        outcomes.failed.push((error as Error).message);
      }
    }
  });
  const from = cluster.lines.length;
  cluster.child.kill('SIGHUP');
  // The first old worker retires only after its replacement listens; it waits for its request in flight.
  await cluster.waitFor((l) => l.msg === 'shutting down', from);
  gate.open();
  const done = await cluster.waitFor((l) => l.msg === 'rolling restart done', from);
  stop = true;
  await Promise.all(load);
  for (const res of await Promise.all(slow)) assert.equal(res.status, 200);
  assert.deepEqual(outcomes.failed, []);
  assert.ok(outcomes.ok > 0);
  const fresh = done['workers'] as number[];
  assert.equal(fresh.length, 2);
  assert.equal(fresh.filter((pid) => workers.includes(pid)).length, 0, 'every worker was replaced');
  const started = cluster.lines.slice(from).filter((l) => l.msg === 'worker listening' || l.msg === 'worker stopped').map((l) => l.msg);
  assert.deepEqual(started, ['worker listening', 'worker stopped', 'worker listening', 'worker stopped'], 'one at a time: a new one listens before an old one stops');
  assert.deepEqual([...(await healthPids(base, 2))].sort(), [...fresh].sort());
});

