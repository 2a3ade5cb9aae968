// `fhirgate serve` tells the operator why a source fails: one line per source and state change (its token
// refused by the token endpoint with the endpoint's `error`/`error_description`, unreachable, answering 5xx),
// one line when it recovers, and never a secret or a token, even at LOG_LEVEL=debug.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../support/free-port.js';
import { sandbox } from '../support/sandbox.js';
import { startCli, waitServing, type CliRun } from '../support/run-cli.js';

/** Resolves once the CLI has printed `n` lines with `msg` (warnings go to stderr); fails with the log after a generous bound. */
async function waitForLines(run: CliRun, msg: string, n: number): Promise<void> {
  for (const started = Date.now(); lines(run, msg).length < n; await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() - started > 60_000 || run.child.exitCode !== null) throw new Error(`no ${n} "${msg}" line:\n${run.stdout()}\n${run.stderr()}`);
  }
}

const WRONG_SECRET = 'wrong-secret-f00dbabe1234';

/** The JSON lines of the CLI's output with `msg`. */
function lines(run: CliRun, msg: string): Record<string, unknown>[] {
  return (run.stdout() + '\n' + run.stderr()).split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('serve logs a source\'s refused token, its unreachable server, its 5xx and its recovery once each, never a secret', async (t) => {
  const bad = await sandbox(t, { seed: 'a' });
  const ehr = await sandbox(t, { seed: 'a' });
  const port = await freePort();
  const wrong = bad.connectionString().replace('client_secret=demo-secret', `client_secret=${WRONG_SECRET}`);
  assert.notEqual(wrong, bad.connectionString());
  const run = startCli(t, ['serve', '--source', `bad=${wrong}`, '--source', `ehr=${ehr.connectionString()}`, '--source', `gone=fhir://127.0.0.1:${port}/fhir`, '--port', '0'], { LOG_LEVEL: 'debug' });
  const serving = await waitServing(run);

  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${serving.gateway}/bad/Patient/a-patient-1`)).status, 502);
  await waitForLines(run, 'source token refused by the token endpoint', 1);
  for (let i = 0; i < 2; i++) assert.ok((await fetch(`${serving.gateway}/gone/Patient/a-patient-1`)).status >= 500);
  await waitForLines(run, 'source unreachable', 1);

  assert.equal((await fetch(`${serving.gateway}/ehr/Patient/a-patient-1`)).status, 200, 'healthy: nothing logged');
  ehr.faults.failNext(4, 500);
  let status = 0;
  for (let i = 0; i < 20 && status !== 200; i++) status = (await fetch(`${serving.gateway}/ehr/Patient/a-patient-1`)).status;
  assert.equal(status, 200, 'the faults run out');
  await waitForLines(run, 'source recovered: answering again', 1);

  const refused = lines(run, 'source token refused by the token endpoint');
  assert.equal(refused.length, 1, 'once per state change, not per request');
  assert.equal(refused[0]!['source'], 'bad');
  assert.equal(refused[0]!['status'], 401);
  assert.equal(refused[0]!['error'], 'invalid_client');
  assert.equal(typeof refused[0]!['error_description'], 'string');
  const unreachable = lines(run, 'source unreachable');
  assert.equal(unreachable.length, 1);
  assert.equal(unreachable[0]!['source'], 'gone');
  const failing = lines(run, 'source answers with server errors');
  assert.equal(failing.length, 1);
  assert.equal(failing[0]!['source'], 'ehr');
  assert.equal(failing[0]!['status'], 500);
  const recovered = lines(run, 'source recovered: answering again');
  assert.deepEqual(recovered.map((l) => l['source']), ['ehr']);

  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  const log = run.stdout() + run.stderr();
  assert.ok(!log.includes(WRONG_SECRET) && !log.includes('demo-secret'), 'no client secret in the log');
  assert.doesNotMatch(log, /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/, 'no access token (the sandbox issues 43-character tokens) in the log');
});
