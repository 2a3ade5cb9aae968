/**
 * `fhirgate serve --workers 2` under load through three SIGHUP rolling restarts, counted by a client
 * that sees connection-level failures (resets, connections closed without an answer), as real processes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answered, describeLoad, failures, runMixedLoad } from '../support/load-client.js';
import { countLines, serveSandboxWorkers, waitForLines } from '../support/run-cli.js';

test('three SIGHUP rolling restarts under keep-alive and one-connection-per-request load: no request fails', async (t) => {
  const { run, origin } = await serveSandboxWorkers(t, 2);
  const stop = new AbortController();
  const load = runMixedLoad(`${origin}/`, stop.signal);
  for (let i = 1; i <= 3; i += 1) {
    run.child.kill('SIGHUP');
    await waitForLines(run, 'rolling restart done', i);
  }
  stop.abort();
  for (const [name, counts] of await load) {
    t.diagnostic(describeLoad(name, counts));
    assert.equal(failures(counts), 0, JSON.stringify(counts));
    assert.equal(counts.refused, 0, 'the port never closed');
    assert.ok(answered(counts) > 0);
  }
  assert.equal(countLines(run, 'worker stopped'), 6, 'every worker of every restart was replaced');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});
