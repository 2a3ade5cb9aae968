/** Requests that crash workers (uncaught errors) against the crash-loop cap, with the test cluster as real processes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call } from '../support/host-helpers.js';
import { startCluster } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('one hostile request a second for longer than the crash-loop window never takes the cluster down: each worker it crashes had served', async (t) => {
  // Two deaths before serving within 3 s would be a crash loop; the hostile client crashes a worker every
  // second for 8 s, each of them (but the first two) younger than a second.
  const cluster = startCluster(t, { WORKERS: '2', MAX_RESTARTS: '1', RESTART_WINDOW_MS: '3000' });
  const { base } = await cluster.ready();
  const from = cluster.lines.length;
  let healthy = 0;
  for (let i = 0; i < 8; i += 1) {
    await call(base, '/crash').catch(() => undefined);
    await sleep(1_000);
    if ((await call(base, '/health').catch(() => undefined))?.status === 200) healthy += 1;
  }
  const died = cluster.lines.slice(from).filter((l) => l.msg === 'worker died');
  assert.ok(died.length >= 6, `a worker died for most hostile requests (${died.length})`);
  for (const line of died) assert.deepEqual([line['reason'], line['served']], ['the handler broke the worker (test)', true]);
  assert.ok(!cluster.lines.some((l) => l.msg === 'cluster gave up'), 'no crash loop: every worker that died had served');
  assert.equal(cluster.child.exitCode, null, 'the primary still runs');
  assert.ok(healthy >= 6, `the cluster kept serving between the crashes (${healthy} of 8 health checks)`);
  assert.equal((await call(base, '/health')).status, 200);
  const crashed = cluster.lines.filter((l) => l.msg === 'worker crashed');
  assert.equal(crashed[0]!['error'], 'the handler broke the worker (test)');
  assert.ok(!cluster.lines.some((l) => l.msg === 'text' && /^\s+at /.test(String(l['text']))), 'no stack trace in the output');
});

test('workers that listen but die before serving any connection are a crash loop', async (t) => {
  const cluster = startCluster(t, { WORKERS: '1', APP: 'dies-idle', MAX_RESTARTS: '2' });
  assert.equal(await cluster.exited, 1);
  assert.ok(cluster.lines.some((l) => l.msg === 'worker listening'), 'they did listen');
  const died = cluster.lines.filter((l) => l.msg === 'worker died');
  assert.deepEqual(died.map((l) => l['served']), [false, false, false]);
  const gaveUp = await cluster.waitFor((l) => l.msg === 'cluster gave up');
  assert.match(gaveUp['error'] as string, /^3 workers died before serving a connection within 30000 ms \(the last: the worker broke while idle \(test\)\); giving up$/);
});
