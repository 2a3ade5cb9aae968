import assert from 'node:assert/strict';
import { test } from 'node:test';
import { availableParallelism } from 'node:os';
import { serveCluster } from '../../src/cluster/index.js';
import { resolveClusterOptions } from '../../src/cluster/options.js';
import { createServiceAPI } from '../../src/host/index.js';
import { call } from '../host/helpers.js';
import { startCluster, startGate } from './helpers.js';

/** `/health` over fresh connections until every pid in `expected` has answered (round robin alternates). */
async function healthPids(base: string, expected: number): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < 40 && pids.size < expected; i += 1) {
    const res = await call(base, '/health');
    assert.equal(res.status, 200);
    pids.add(res.json().pid as number);
  }
  return pids;
}

test('bad options throw at once, naming the option', () => {
  const make = () => createServiceAPI();
  assert.throws(() => serveCluster('app' as never, { port: 0 }), TypeError);
  assert.throws(() => serveCluster(make, { port: 0, workers: 0 }), { name: 'RangeError', message: /^options\.workers must be/ });
  assert.throws(() => serveCluster(make, { port: 0, workers: 'all' as never }), { name: 'TypeError', message: /^options\.workers must be/ });
  assert.throws(() => serveCluster(make, {} as never), { name: 'TypeError', message: /^options\.port must be/ });
  assert.throws(() => serveCluster(make, { port: 70000 }), { name: 'RangeError', message: /^options\.port must be/ });
  assert.throws(() => serveCluster(make, { port: 0, host: '' }), { name: 'TypeError', message: /^options\.host must be/ });
  assert.throws(() => serveCluster(make, { port: 0, maxRestarts: -1 }), { name: 'RangeError', message: /^options\.maxRestarts must be/ });
  assert.throws(() => serveCluster(make, { port: 0, restartDelayMs: 10, maxRestartDelayMs: 5 }), { name: 'RangeError', message: /^options\.restartDelayMs must be <= options\.maxRestartDelayMs$/ });
  assert.throws(() => serveCluster(make, { port: 0, logger: {} as never }), { name: 'TypeError', message: /^options\.logger must have/ });
  assert.equal(resolveClusterOptions({ port: 0 }).workers, availableParallelism(), "'auto' by default: one per core");
  assert.equal(resolveClusterOptions({ port: 0, workers: 'auto' }).workers, availableParallelism());
  assert.deepEqual({ ...resolveClusterOptions({ port: 8000, workers: 3 }), logger: null }, {
    workers: 3, port: 8000, host: '127.0.0.1', logger: null, restartDelayMs: 100, maxRestartDelayMs: 5000, maxRestarts: 5, restartWindowMs: 30000, earlyDeathMs: 5000, stopTimeoutMs: 30000,
  });
});

test('restart() and close() without signals: every worker replaced, close() idempotent, then the primary ends by itself', async (t) => {
  const cluster = startCluster(t, { WORKERS: '2', PRIMARY: 'programmatic' });
  const line = await cluster.waitFor((l) => l.msg === 'programmatic');
  const before = line['before'] as number[];
  const after = line['after'] as number[];
  assert.equal(after.length, 2);
  assert.equal(after.filter((pid) => before.includes(pid)).length, 0);
  assert.deepEqual([line['same'], line['late'], line['left']], [true, 'ERR_CLOSED', 0]);
  assert.equal(await cluster.exited, 0, 'nothing keeps the primary alive after close()');
});

test('the workers share one port, and nothing but /health\'s pid tells them apart', async (t) => {
  const cluster = startCluster(t, { WORKERS: '2' });
  const { base, workers } = await cluster.ready();
  assert.equal(workers.length, 2);
  assert.deepEqual([...(await healthPids(base, 2))].sort(), [...workers].sort());
  const answers = await Promise.all(Array.from({ length: 6 }, () => call(base, '/')));
  for (const res of answers) {
    assert.equal(res.status, 200);
    assert.equal(res.text, answers[0]!.text);
    assert.deepEqual(Object.keys(res.headers).sort(), Object.keys(answers[0]!.headers).sort());
    assert.ok(!res.text.includes(String(workers[0])) && !res.text.includes(String(workers[1])));
  }
  assert.equal((await call(base, '/health/ready')).status, 200);
});

test('a worker that dies is re-forked, and the new one serves on the same port', async (t) => {
  const cluster = startCluster(t, { WORKERS: '2' });
  const { base, workers } = await cluster.ready();
  const [victim, survivor] = workers as [number, number];
  const from = cluster.lines.length;
  process.kill(victim, 'SIGKILL');
  const died = await cluster.waitFor((l) => l.msg === 'worker died', from);
  assert.deepEqual([died['pid'], died['signal']], [victim, 'SIGKILL']);
  const fresh = await cluster.waitFor((l) => l.msg === 'worker listening', from);
  const pids = await healthPids(base, 2);
  assert.deepEqual([...pids].sort(), [survivor, fresh['pid'] as number].sort());
});

test('a crash loop ends with one ERR_CLUSTER line naming the reason and exit code 1', async (t) => {
  const cluster = startCluster(t, { WORKERS: '2', APP: 'throws', MAX_RESTARTS: '2' });
  assert.equal(await cluster.exited, 1);
  const gaveUp = cluster.lines.filter((l) => l.msg === 'cluster gave up');
  assert.equal(gaveUp.length, 1);
  assert.equal(gaveUp[0]!['code'], 'ERR_CLUSTER');
  assert.match(gaveUp[0]!['error'] as string, /^3 workers failed to start within 30000 ms \(the last: the database is unreachable \(test\)\); giving up$/);
  // Two workers die at start, are re-forked after 20 then 40 ms (doubled per recent death); the third death gives up.
  const died = cluster.lines.filter((l) => l.msg === 'worker died');
  assert.deepEqual(died.slice(0, 3).map((l) => l['restart_in_ms']), [20, 40, undefined]);
  assert.ok(!cluster.lines.some((l) => l.msg === 'cluster ready'));
});

test('createApp() that returns something else than a ServiceAPI is named in the error', async (t) => {
  const cluster = startCluster(t, { WORKERS: '1', APP: 'not-an-app', MAX_RESTARTS: '0' });
  assert.equal(await cluster.exited, 1);
  const gaveUp = await cluster.waitFor((l) => l.msg === 'cluster gave up');
  assert.match(gaveUp['error'] as string, /createApp\(\) must return or resolve to a ServiceAPI/);
});

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

