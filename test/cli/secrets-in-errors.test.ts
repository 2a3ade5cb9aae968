/**
 * Issue 22.2: a secret reaches no CLI output, by any route (a config file, --source, the export argument,
 * an argument the parser did not expect), for check, serve and export; and ${VAR} secrets holding &, %,
 * =, # or spaces are sent as written.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ROOT, runCli as runSources, runMain, startBin, tempDir, waitServing } from '../support/run-cli.js';

/** The runs that reach a server go through `bin/fhirgate.js`, the command a user types; the mistakes refused before
 * any I/O run the CLI's `main` in this process (the same parsing, messages and exit codes, without a process each). */
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

/** A config file naming the sandbox with ${EHR_SECRET}, and a transform handler that reads through the gateway. */
function configDir(t: TestContext, sb: Sandbox): string {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'transform.mjs'), `export default (gw) => gw.transform('Patient', (id, source) => gw.read('Patient', id, source));\n`);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: withSecret(sb, '${EHR_SECRET}') }, gateway: { module: './transform.mjs' } }));
  return dir;
}

const ENV = { EHR_SECRET: SECRET };

test('check: ${EHR_SECRET} holding & % = # and spaces works as written from the config file and from a single-quoted --source, never printed', async (t) => {
  const sb = await sandbox(t);
  const dir = configDir(t, sb);
  const fromFile = await runCli(t, ['check', '--config', 'fhirgate.json'], ENV, dir);
  assert.equal(fromFile.code, 0, fromFile.stdout + fromFile.stderr);
  assert.match(fromFile.stdout, /^ehr .*ok: Bearer token received/m);
  assertNoSecret(fromFile, 'check --config');
  const fromFlag = await runCli(t, ['check', '--source', `ehr=${withSecret(sb, '${EHR_SECRET}')}`], ENV, dir);
  assert.equal(fromFlag.code, 0, fromFlag.stdout + fromFlag.stderr);
  assertNoSecret(fromFlag, 'check --source');
  assert.equal(sb.stats.tokenRequests, 2, 'each got a token with the secret as written');
});

test('export: ${EHR_SECRET} in a single-quoted <connection-string> works as written, never printed', async (t) => {
  const sb = await sandbox(t);
  const dir = tempDir(t);
  const exported = await runCli(t, ['export', withSecret(sb, '${EHR_SECRET}'), '--type', 'Patient', '--out', join(dir, 'export')], ENV, dir);
  assert.equal(exported.code, 0, exported.stderr);
  assertNoSecret(exported, 'export <connection-string>');
  assert.equal(sb.stats.tokenRequests, 1);
});

test('serve: ${EHR_SECRET} from the config file reaches the token endpoint as written; nothing served or logged holds it', async (t) => {
  const sb = await sandbox(t);
  const served = startBin(t, ['serve', '--config', 'fhirgate.json', '--port', '0'], ENV, configDir(t, sb));
  const serving = await waitServing(served);
  const res = await fetch(`${serving.gateway}/transform/Patient/a-patient-1?source=ehr`);
  assert.equal(res.status, 200, 'the gateway got a token with the secret as written');
  assert.equal(((await res.json()) as { id: string }).id, 'a-patient-1');
  served.child.kill('SIGTERM');
  assert.equal(await served.exited, 0);
  assertNoSecret({ stdout: served.stdout(), stderr: served.stderr() }, 'serve --config');
  assert.equal(sb.stats.tokenRequests, 1);
});

/** A connection string with the secret inserted unencoded, as a shell inserts "$EHR_SECRET" (nothing listens on port 9). */
const RAW_STRING = `fhir://127.0.0.1:9/fhir/R4/?client_id=app&client_secret=${RAW}&token_url=http%3A%2F%2F127.0.0.1%3A9%2Ftoken`;

/** Each route, and its exit code: on the command line (--source, the argument) a mistake is 2; in the config file, 1. */
const RAW_RUNS: Array<[string, (dir: string) => string[], number]> = [
  ['check --source', () => ['check', '--source', `ehr=${RAW_STRING}`], 2],
  ['serve --source', () => ['serve', '--source', `ehr=${RAW_STRING}`, '--port', '0'], 2],
  ['serve --config', () => ['serve', '--config', 'fhirgate.json', '--port', '0'], 1],
  ['export <connection-string>', (dir) => ['export', RAW_STRING, '--out', join(dir, 'x')], 2],
  ['export --config', (dir) => ['export', '--config', 'fhirgate.json', '--out', join(dir, 'y')], 1],
];

test('a secret the shell inserted unencoded, whose & splits the query: check, serve and export fail naming no part of it', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: RAW_STRING } }));
  const runs = await Promise.all(RAW_RUNS.map(([, args]) => runMain(args(dir), {}, dir)));
  RAW_RUNS.forEach(([what, , code], i) => {
    const run = runs[i]!;
    assert.equal(run.code, code, `${what}: ${run.stderr}`);
    assert.match(run.stderr, /an unknown parameter at position 3 of the query; allowed: client_id, /, what);
    assert.match(run.stderr, /must be percent-encoded/, `${what}: says how to fix it`);
    assertNoSecret(run, what);
  });
});

/** The secret encoded as it should be, pasted where the parser takes no connection string. */
const CS = `fhir://127.0.0.1:9/fhir/R4/?client_id=app&client_secret=${encodeURIComponent(SECRET)}`;

const MISPLACED: Array<[string, string[], RegExp]> = [
  ['check <cs>', ['check', CS], /^fhirgate check: takes no argument besides its options, but the argument at position 1 is not an option: give a connection string as --source name=fhir:\/\/…/],
  ['serve --port 0 <cs>', ['serve', '--port', '0', CS], /^fhirgate serve: takes no argument besides its options, but the argument at position 3 is not an option/],
  ['export <cs> <cs>', ['export', 'fhir://127.0.0.1:9/', CS], /^fhirgate export: takes one <connection-string>, got 2 arguments/],
  ['<cs> as the command', [CS], /^fhirgate: the first argument is not a command; commands: serve, check, export/],
  ['an unknown option holding it', ['check', `--client_secret=${RAW}`], /^fhirgate check: an unknown option at position 1\n/],
  ['a typo of --source holding it', ['check', `--sorce=ehr=${CS}`], /^fhirgate check: unknown option --sorce \(at position 1\); did you mean --source\?/],
  ['a boolean given it', ['check', `--json=${RAW}`], /^fhirgate check: --json takes no value \(at position 1\)/],
  ['a short option group', ['export', `-${RAW}`], /^fhirgate export: an unknown option at position 1\n/],
  ['a value missing before it', ['serve', '--port', `--source=ehr=${CS}`], /^fhirgate serve: --port needs a value \(at position 1\); for a value starting with -, write --port=<value>/],
];

test('a connection string where the parser expects none is a usage error (exit 2) that quotes no argument, for each command', async () => {
  const runs = await Promise.all(MISPLACED.map(([, args]) => runMain(args)));
  MISPLACED.forEach(([what, , message], i) => {
    const run = runs[i]!;
    assert.equal(run.code, 2, `${what}: ${run.stderr}`);
    assert.match(run.stderr, message, what);
    assertNoSecret(run, what);
  });
});
