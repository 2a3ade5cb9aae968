/**
 * `fhirgate serve --workers 2` under load through SIGTERM, counted by a client
 * that sees connection-level failures (resets, connections closed without an answer), as real processes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answered, describeLoad, failures, resetsAtListenerClose, runMixedLoad } from '../support/load-client.js';
import type { LoadSample } from '../support/load-client.js';
import { serveSandboxWorkers } from '../support/run-cli.js';

// A connection that the kernel completes into the listen queue between the primary's last accept and its
// close would be reset by Linux (inet_csk_listen_stop). The primary closes quietly instead: it holds what it
// accepts until its queue reads empty, closes, then hands the held connections over
// (src/cluster/held-listener.ts). Under this closed-loop load nothing is reset, closed without an answer,
// timed out or answered with an error status; later connections are refused.
test('SIGTERM under load: every accepted connection is answered, none is reset; later ones are refused', async (t) => {
  const { run, origin } = await serveSandboxWorkers(t, 2);
  const stop = new AbortController();
  const samples = { keepAlive: [] as LoadSample[], perRequest: [] as LoadSample[] };
  const load = runMixedLoad(`${origin}/`, stop.signal, samples);
  // Some load first, so that the signal lands among connections in every state.
  await new Promise((resolve) => setTimeout(resolve, 500));
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  // Clients keep trying for a moment after the exit: all of that must be refusals.
  await new Promise((resolve) => setTimeout(resolve, 200));
  stop.abort();
  const [keepAlive, perRequest] = await load;
  for (const [[name, counts], sent] of [[keepAlive!, samples.keepAlive], [perRequest!, samples.perRequest]] as const) {
    const resets = resetsAtListenerClose(sent);
    t.diagnostic(`${describeLoad(name, counts)}; resets at the listener's close ${resets.atClose}`);
    assert.equal(counts.reset, 0, `${name}: ${counts.reset} reset (${resets.atClose} at the listener's close)`);
    assert.equal(failures(counts), 0, `${name}: ${JSON.stringify(counts)}`);
    assert.ok(answered(counts) > 0);
    assert.ok(counts.refused > 0, 'the load went on until the port was closed');
  }
});
