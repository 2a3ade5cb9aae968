/**
 * Issue 22.2, through bin/fhirgate.js: a secret reaches no CLI output, by any route (a config file, --source, the export argument,
 * an argument the parser did not expect), for check, serve and export; and ${VAR} secrets holding &, %,
 * =, # or spaces are sent as written.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ROOT, runCli as runSources, startBin, tempDir, waitServing } from './run-cli.js';

/** Every run here is `bin/fhirgate.js`, the command a user types. */
const runCli: typeof runSources = (t, args, env = {}, cwd = ROOT) => runSources(t, args, env, cwd, { bin: true });

/** Holds every character a query treats specially; `Xq9Hidden` and `TopSecretTail123` must never be printed. */
const SECRET = 'Xq9Hidden&TopSecretTail123%41=#z +';
/** What a shell would insert for "$EHR_SECRET" in double quotes: not encoded, so its tail becomes a parameter. */
const RAW = 'Xq9Hidden&TopSecretTail123';

function assertNoSecret(run: { stdout: string; stderr: string }, what: string): void {
  for (const part of ['Xq9Hidden', 'TopSecretTail123']) {
    assert.ok(!run.stdout.includes(part) && !run.stderr.includes(part), `${what}: "${part}" printed:\n${run.stdout}\n${run.stderr}`);
  }
  assert.doesNotMatch(run.stderr, /\n\s+at /, `${what}: no stack trace`);
}

async function sandbox(t: TestContext): Promise<Sandbox> {
  const sb = await startSandbox({ clients: [{ clientId: 'app', clientSecret: SECRET }], exportPolls: 1, exportRetryAfterSeconds: 0 });
  t.after(() => sb.close());
  return sb;
}

/** The sandbox's connection string with the secret replaced by `secret` as written (not encoded). */
function withSecret(sb: Sandbox, secret: string): string {
  return sb.connectionString('app').replace(`client_secret=${encodeURIComponent(SECRET)}`, `client_secret=${secret}`);
}

test('${EHR_SECRET} holding & % = # and spaces works as written in a config file and in single-quoted --source / export arguments, and is never printed', async (t) => {
  const sb = await sandbox(t);
  const env = { EHR_SECRET: SECRET };
  const dir = tempDir(t);
  writeFileSync(join(dir, 'transform.mjs'), `export default (gw) => gw.transform('Patient', (id, source) => gw.read('Patient', id, source));\n`);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: withSecret(sb, '${EHR_SECRET}') }, gateway: { module: './transform.mjs' } }));

  const fromFile = await runCli(t, ['check', '--config', 'fhirgate.json'], env, dir);
  assert.equal(fromFile.code, 0, fromFile.stdout + fromFile.stderr);
  assert.match(fromFile.stdout, /^ehr .*ok: Bearer token received/m);
  assertNoSecret(fromFile, 'check --config');

  const fromFlag = await runCli(t, ['check', '--source', `ehr=${withSecret(sb, '${EHR_SECRET}')}`], env, dir);
  assert.equal(fromFlag.code, 0, fromFlag.stdout + fromFlag.stderr);
  assertNoSecret(fromFlag, 'check --source');

  const out = join(dir, 'export');
  const exported = await runCli(t, ['export', withSecret(sb, '${EHR_SECRET}'), '--type', 'Patient', '--out', out], env, dir);
  assert.equal(exported.code, 0, exported.stderr);
  assertNoSecret(exported, 'export <connection-string>');

  const served = startBin(t, ['serve', '--config', 'fhirgate.json', '--port', '0'], env, dir);
  const serving = await waitServing(served);
  const res = await fetch(`${serving.gateway}/transform/Patient/a-patient-1?source=ehr`);
  assert.equal(res.status, 200, 'the gateway got a token with the secret as written');
  assert.equal(((await res.json()) as { id: string }).id, 'a-patient-1');
  served.child.kill('SIGTERM');
  assert.equal(await served.exited, 0);
  assertNoSecret({ stdout: served.stdout(), stderr: served.stderr() }, 'serve --config');
  assert.equal(sb.stats.tokenRequests, 4, 'check twice, export once, serve once: each got a token');
});

test('a secret the shell inserted unencoded, whose & splits the query: check, serve and export fail naming no part of it', async (t) => {
  const sb = await sandbox(t);
  const dir = tempDir(t);
  const cs = withSecret(sb, RAW);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: cs } }));
  const runs: Array<[string, string[]]> = [
    ['check --source', ['check', '--source', `ehr=${cs}`]],
    ['serve --source', ['serve', '--source', `ehr=${cs}`, '--port', '0']],
    ['serve --config', ['serve', '--config', 'fhirgate.json', '--port', '0']],
    ['export <connection-string>', ['export', cs, '--out', join(dir, 'x')]],
    ['export --config', ['export', '--config', 'fhirgate.json', '--out', join(dir, 'y')]],
  ];
  for (const [what, args] of runs) {
    const run = await runCli(t, args, {}, dir);
    assert.equal(run.code, 1, `${what}: ${run.stderr}`);
    assert.match(run.stderr, /an unknown parameter at position 3 of the query; allowed: client_id, /, what);
    assert.match(run.stderr, /must be percent-encoded/, `${what}: says how to fix it`);
    assertNoSecret(run, what);
  }
});

test('a connection string where the parser expects none is a usage error (exit 2) that quotes no argument', async (t) => {
  const sb = await sandbox(t);
  const cs = withSecret(sb, encodeURIComponent(SECRET));
  const runs: Array<[string, string[], RegExp]> = [
    ['check <cs>', ['check', cs], /^fhirgate check: takes no argument besides its options, but the argument at position 1 is not an option: give a connection string as --source name=fhir:\/\/…/],
    ['serve --port 0 <cs>', ['serve', '--port', '0', cs], /^fhirgate serve: takes no argument besides its options, but the argument at position 3 is not an option/],
    ['export <cs> <cs>', ['export', 'fhir://127.0.0.1:9/', cs], /^fhirgate export: takes one <connection-string>, got 2 arguments/],
    ['<cs> as the command', [cs], /^fhirgate: the first argument is not a command; commands: serve, check, export/],
    ['an unknown option holding it', ['check', `--client_secret=${RAW}`], /^fhirgate check: an unknown option at position 1\n/],
    ['a typo of --source holding it', ['check', `--sorce=ehr=${cs}`], /^fhirgate check: unknown option --sorce \(at position 1\); did you mean --source\?/],
    ['a boolean given it', ['check', `--json=${RAW}`], /^fhirgate check: --json takes no value \(at position 1\)/],
    ['a short option group', ['export', `-${RAW}`], /^fhirgate export: an unknown option at position 1\n/],
    ['a value missing before it', ['serve', '--port', `--source=ehr=${cs}`], /^fhirgate serve: --port needs a value \(at position 1\); for a value starting with -, write --port=<value>/],
  ];
  for (const [what, args, message] of runs) {
    const run = await runCli(t, args);
    assert.equal(run.code, 2, `${what}: ${run.stderr}`);
    assert.match(run.stderr, message, what);
    assertNoSecret(run, what);
  }
  assert.equal(sb.stats.tokenRequests, 0);
});
