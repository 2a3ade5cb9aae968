import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startSandbox } from '../../src/sandbox/index.js';
import { type CliRun, runMain, startCli, tempDir, waitServing } from '../support/run-cli.js';

async function sandbox(t: TestContext) {
  const s = await startSandbox({ seed: 'a' });
  t.after(() => s.close());
  return s;
}

test("a handler module's error: the log names its file and line (its stack at debug), the client gets neither", async (t) => {
  const ehr = await sandbox(t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'handlers.mjs'), [
    'export default function setup(gw) {',
    "  gw.transform('Patient', async (id) => {",
    "    throw new Error('summary broke for ' + id);",
    '  });',
    '}',
    '',
  ].join('\n'));
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: ehr.connectionString() }, gateway: { module: './handlers.mjs' }, port: 0 }));
  const run = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json')], { LOG_LEVEL: 'debug' });
  const serving = await waitServing(run);

  const answer = await fetch(`${serving.gateway}/transform/Patient/a-patient-1?source=ehr`);
  assert.equal(answer.status, 500);
  const body = await answer.text();
  assert.doesNotMatch(body, /handlers\.mjs|summary broke|at setup/);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);

  const failed = run.stderr().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'transform handler failed');
  assert.equal(failed?.['at'], `${join(dir, 'handlers.mjs')}:3:11`);
  assert.equal(failed?.['error'], 'Error: summary broke for a-patient-1');
  assert.equal(failed?.['stack'], undefined, 'the error line carries no stack');
  const stack = run.stdout().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'transform handler failed: stack');
  assert.equal(stack?.['level'], 'debug');
  assert.match(String(stack?.['stack']), /^Error: summary broke for a-patient-1\n\s+at .*handlers\.mjs:3:11/);
});

/** Waits until stdout holds a line matching `pattern` and returns it. */
async function waitLine(run: CliRun, pattern: RegExp): Promise<string> {
  for (;;) {
    const line = run.stdout().split('\n').find((l) => pattern.test(l));
    if (line !== undefined) return line;
    if (run.child.exitCode !== null) throw new Error(`exited:\n${run.stdout()}\n${run.stderr()}`);
    await Promise.race([once(run.child.stdout, 'data'), run.exited]);
  }
}

test('LOG_FORMAT=pretty: serve writes one readable line per event, the access line as METHOD route status', async (t) => {
  const ehr = await sandbox(t);
  const run = startCli(t, ['serve', '--source', `ehr=${ehr.connectionString()}`, '--port', '0'], { LOG_FORMAT: 'pretty' });
  const serving = await waitLine(run, / INFO  serving .*gateway=/);
  const gateway = /gateway=(\S+)/.exec(serving)![1]!;
  assert.equal((await fetch(`${gateway}/status`)).status, 200);
  await waitLine(run, / INFO  GET \/fhir\/status 200 [\d.]+ ms request_id=/);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  for (const line of run.stdout().trim().split('\n')) assert.match(line, /^\d\d:\d\d:\d\d\.\d{3} (INFO |DEBUG) \S/, line);
});

test('LOG_FORMAT other than json or pretty stops serve with exit code 1, naming it', async () => {
  const { code, stderr } = await runMain(['serve', '--source', 'ehr=fhir://localhost:8080/fhir/', '--port', '0'], { LOG_FORMAT: 'xml' });
  assert.equal(code, 1);
  assert.match(stderr, /^fhirgate serve: LOG_FORMAT: must be one of json, pretty\n$/);
});
