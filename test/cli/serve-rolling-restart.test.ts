/**
 * `fhirgate serve --workers 2` under load through three SIGHUP rolling restarts, counted by a client
 * that sees connection-level failures (resets, connections closed without an answer), as real processes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answered, describeLoad, failures, runLoad } from '../support/load-client.js';
import { countLines, serveSandboxWorkers, waitForLines } from './run-cli.js';

test('three SIGHUP rolling restarts under keep-alive and one-connection-per-request load: no request fails', async (t) => {
  const { run, origin } = await serveSandboxWorkers(t, 2);
  const stop = new AbortController();
  const keepAlive = runLoad({ url: `${origin}/`, connections: 8, keepAlive: true }, stop.signal);
  const fresh = runLoad({ url: `${origin}/`, connections: 4, keepAlive: false }, stop.signal);
  for (let i = 1; i <= 3; i += 1) {
    run.child.kill('SIGHUP');
    await waitForLines(run, 'rolling restart done', i);
  }
  stop.abort();
  const [a, b] = await Promise.all([keepAlive, fresh]);
  t.diagnostic(describeLoad('keep-alive', a));
  t.diagnostic(describeLoad('new connection per request', b));
  for (const counts of [a, b]) {
    assert.equal(failures(counts), 0, JSON.stringify(counts));
    assert.equal(counts.refused, 0, 'the port never closed');
    assert.ok(answered(counts) > 0);
  }
  assert.equal(countLines(run, 'worker stopped'), 6, 'every worker of every restart was replaced');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});
