import assert from 'node:assert/strict';
import { test } from 'node:test';
import { availableParallelism } from 'node:os';
import { serveCluster } from '../../src/cluster/index.js';
import { resolveClusterOptions } from '../../src/cluster/options.js';
import { createServiceAPI } from '../../src/host/index.js';
import { call } from '../support/host-helpers.js';
import { healthPids, startCluster } from './helpers.js';

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
  const names = ['workers', 'port', 'host', 'logger', 'restartDelayMs', 'maxRestartDelayMs', 'maxRestarts', 'restartWindowMs', 'stopTimeoutMs', 'reusePort'];
  for (const name of names) {
    const typo = name[0] + name.slice(2);
    assert.throws(() => serveCluster(make, { port: 0, [typo]: 1 } as never), { name: 'TypeError', message: `options.${typo} is not an option; did you mean \`${name}\`?` });
  }
  assert.throws(() => serveCluster(make, { port: 0, s3cretValue: 1 } as never), { name: 'TypeError', message: /^options has an unknown option \(key 2\); the options are workers, port/ });
  assert.equal(resolveClusterOptions({ port: 0 }).workers, availableParallelism(), "'auto' by default: one per core");
  assert.equal(resolveClusterOptions({ port: 0, workers: 'auto' }).workers, availableParallelism());
  assert.deepEqual({ ...resolveClusterOptions({ port: 8000, workers: 3 }), logger: null }, {
    workers: 3, port: 8000, host: '127.0.0.1', logger: null, restartDelayMs: 100, maxRestartDelayMs: 5000, maxRestarts: 5, restartWindowMs: 30000, stopTimeoutMs: 30000, reusePort: 'auto',
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
  assert.match(gaveUp[0]!['error'] as string, /^3 workers died before serving a connection within 30000 ms \(the last: the database is unreachable \(test\)\); giving up$/);
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
