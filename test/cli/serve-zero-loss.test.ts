/**
 * `fhirgate serve --workers 2` under load through SIGHUP rolling restarts and SIGTERM, counted by a client
 * that sees connection-level failures (resets, connections closed without an answer), as real processes.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { startSandbox } from '../../src/sandbox/index.js';
import { answered, failures, runLoad } from '../support/load-client.js';
import type { LoadCounts } from '../support/load-client.js';
import { startCli, waitServing } from './run-cli.js';
import type { CliRun } from './run-cli.js';

async function serveTwoWorkers(t: Parameters<typeof startCli>[0]): Promise<{ run: CliRun; origin: string }> {
  const sb = await startSandbox({ seed: 'a' });
  t.after(() => sb.close());
  const run = startCli(t, ['serve', '--source', `a=${sb.connectionString()}`, '--port', '0', '--workers', '2']);
  const serving = await waitServing(run);
  return { run, origin: new URL(serving.gateway).origin };
}

const lines = (run: CliRun, msg: string) => run.stdout().split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).length;

async function untilLines(run: CliRun, msg: string, n: number): Promise<void> {
  while (lines(run, msg) < n) {
    if (run.child.exitCode !== null) throw new Error(`the CLI exited:\n${run.stdout()}\n${run.stderr()}`);
    await Promise.race([once(run.child.stdout, 'data'), run.exited]);
  }
}

const summary = (name: string, c: LoadCounts) =>
  `${name}: sent ${c.sent}, answered ${answered(c)}, status ${JSON.stringify(c.status)}, reset ${c.reset}, closed without answer ${c.closedWithoutAnswer}, refused ${c.refused}, timed out ${c.timedOut}, errors ${JSON.stringify(c.errors)}`;

test('three SIGHUP rolling restarts under keep-alive and one-connection-per-request load: no request fails', async (t) => {
  const { run, origin } = await serveTwoWorkers(t);
  const stop = new AbortController();
  const keepAlive = runLoad({ url: `${origin}/`, connections: 8, keepAlive: true }, stop.signal);
  const fresh = runLoad({ url: `${origin}/`, connections: 4, keepAlive: false }, stop.signal);
  for (let i = 1; i <= 3; i += 1) {
    run.child.kill('SIGHUP');
    await untilLines(run, 'rolling restart done', i);
  }
  stop.abort();
  const [a, b] = await Promise.all([keepAlive, fresh]);
  t.diagnostic(summary('keep-alive', a));
  t.diagnostic(summary('new connection per request', b));
  for (const counts of [a, b]) {
    assert.equal(failures(counts), 0, JSON.stringify(counts));
    assert.equal(counts.refused, 0, 'the port never closed');
    assert.ok(answered(counts) > 0);
  }
  assert.equal(lines(run, 'worker stopped'), 6, 'every worker of every restart was replaced');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('SIGTERM under load: every accepted connection is answered; later ones are refused, none reset', async (t) => {
  const { run, origin } = await serveTwoWorkers(t);
  const stop = new AbortController();
  const keepAlive = runLoad({ url: `${origin}/`, connections: 8, keepAlive: true }, stop.signal);
  const fresh = runLoad({ url: `${origin}/`, connections: 4, keepAlive: false }, stop.signal);
  // Some load first, so that the signal lands among connections in every state.
  await new Promise((resolve) => setTimeout(resolve, 500));
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  // Clients keep trying for a moment after the exit: all of that must be refusals.
  await new Promise((resolve) => setTimeout(resolve, 200));
  stop.abort();
  const [a, b] = await Promise.all([keepAlive, fresh]);
  t.diagnostic(summary('keep-alive', a));
  t.diagnostic(summary('new connection per request', b));
  for (const counts of [a, b]) {
    assert.equal(failures(counts), 0, JSON.stringify(counts));
    assert.ok(answered(counts) > 0);
    assert.ok(counts.refused > 0, 'the load went on until the port was closed');
  }
});
