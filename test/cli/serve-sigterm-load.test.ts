/**
 * `fhirgate serve --workers 2` under load through SIGTERM, counted by a client
 * that sees connection-level failures (resets, connections closed without an answer), as real processes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answered, describeLoad, failures, runLoad } from '../support/load-client.js';
import { serveSandboxWorkers } from './run-cli.js';

test('SIGTERM under load: every accepted connection is answered; later ones are refused, none reset', async (t) => {
  const { run, origin } = await serveSandboxWorkers(t, 2);
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
  t.diagnostic(describeLoad('keep-alive', a));
  t.diagnostic(describeLoad('new connection per request', b));
  for (const counts of [a, b]) {
    assert.equal(failures(counts), 0, JSON.stringify(counts));
    assert.ok(answered(counts) > 0);
    assert.ok(counts.refused > 0, 'the load went on until the port was closed');
  }
});
