/** A request that crashes a worker (an uncaught error) against the crash-loop cap, with the test cluster as real processes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call } from '../host/helpers.js';
import { startCluster } from './helpers.js';

/** GET /crash on `base` once a worker has served for longer than `settleMs`; resolves to the `worker died` line. */
async function crashOnce(cluster: ReturnType<typeof startCluster>, base: string, settleMs: number): Promise<Record<string, unknown>> {
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const from = cluster.lines.length;
  await call(base, '/crash').catch(() => undefined);
  const died = await cluster.waitFor((l) => l.msg === 'worker died', from);
  await cluster.waitFor((l) => l.msg === 'worker listening', from);
  return died;
}

test('a request that crashes a serving worker never takes the cluster down: restarted every time, the error in the log line', async (t) => {
  const cluster = startCluster(t, { WORKERS: '1', MAX_RESTARTS: '1', EARLY_DEATH_MS: '300' });
  const { base } = await cluster.ready();
  const deaths = [];
  for (let i = 0; i < 3; i += 1) deaths.push(await crashOnce(cluster, base, 400));
  for (const died of deaths) {
    assert.equal(died['reason'], 'the handler broke the worker (test)');
    assert.equal(died['served'], true);
    assert.equal(died['code'], 1);
  }
  assert.ok(!cluster.lines.some((l) => l.msg === 'cluster gave up'), 'three deaths > maxRestarts 1, yet no crash loop');
  assert.equal((await call(base, '/health')).status, 200);
  const crashed = cluster.lines.filter((l) => l.msg === 'worker crashed');
  assert.equal(crashed.length, 3);
  assert.equal(crashed[0]!['error'], 'the handler broke the worker (test)');
  assert.ok(!cluster.lines.some((l) => l.msg === 'text' && /^\s+at /.test(String(l['text']))), 'no stack trace in the output');
});

test('a worker that dies within earlyDeathMs of listening counts toward the crash-loop cap', async (t) => {
  const cluster = startCluster(t, { WORKERS: '1', MAX_RESTARTS: '1', EARLY_DEATH_MS: '60000' });
  const { base } = await cluster.ready();
  assert.equal((await crashOnce(cluster, base, 0))['served'], false);
  await call(base, '/crash').catch(() => undefined);
  assert.equal(await cluster.exited, 1);
  const gaveUp = await cluster.waitFor((l) => l.msg === 'cluster gave up');
  assert.match(gaveUp['error'] as string, /^2 workers failed to start within 30000 ms \(the last: the handler broke the worker \(test\)\); giving up$/);
});
