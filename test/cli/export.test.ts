/** `fhirgate export` as a real child process against the sandbox's $export (and a fault server). */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXPORT_COMMAND } from '../../src/cli/export-command.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { bulkServer, ndjson, OUTCOME } from '../support/bulk-fault-server.js';
import { runCli, runMain, startCli, tempDir } from '../support/run-cli.js';

async function sandbox(t: TestContext, options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({ exportPolls: 0, exportRetryAfterSeconds: 0, ...options });
  t.after(() => sb.close());
  return sb;
}

function reader(t: TestContext, sb: Sandbox): AsyncFHIRGateway {
  const gw = new AsyncFHIRGateway({ events: false });
  gw.addSource('sb', sb.connectionString());
  t.after(() => gw.close());
  return gw;
}

/** The lines of every file in `dir`, parsed, by file name. */
function filesOf(dir: string): Record<string, Array<{ resourceType: string; id?: string }>> {
  return Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { resourceType: string; id?: string })]));
}

test('export <connection-string> --type Patient,Observation writes one NDJSON file per type holding what the sandbox holds', async (t) => {
  const sb = await sandbox(t);
  const gw = reader(t, sb);
  const out = join(tempDir(t), 'export');
  const { code, stdout, stderr } = await runCli(t, ['export', sb.connectionString(), '--type', 'Patient,Observation', '--out', out]);
  assert.equal(code, 0, stderr);
  const files = filesOf(out);
  assert.deepEqual(Object.keys(files), ['Observation.ndjson', 'Patient.ndjson'], 'one file per asked type, no .part left');
  for (const type of ['Patient', 'Observation'] as const) {
    const held = await gw.search(type, { _count: 1000 }, 'sb');
    const lines = files[`${type}.ndjson`]!;
    assert.ok(lines.length > 0);
    assert.equal(lines.length, held.total);
    assert.deepEqual(new Set(lines.map((r) => r.id)), new Set(held.entry?.map((e) => e.resource?.id)));
    assert.ok(lines.every((r) => r.resourceType === type));
    assert.match(stdout, new RegExp(`^${type}\\.ndjson +${lines.length} lines +\\d`, 'm'), 'the summary counts the lines');
  }
  assert.match(stdout, /^exported \d+ resource\(s\) in 2 file\(s\), .* in \d+\.\d s$/m);
  assert.equal(stderr, '', 'no progress line when stderr is not a terminal');
  assert.equal(sb.stats.requests.byMethod.DELETE, 1, 'the finished job was deleted');
  assert.ok(!stdout.includes('demo-secret'));
});

test('--since exports only what changed after it; --config with --source-name and --level group:<id> picks source and group', async (t) => {
  const a = await sandbox(t, { seed: 'a' });
  const b = await sandbox(t, { seed: 'b' });
  const gw = reader(t, b);
  const marker = await gw.create({ resourceType: 'Patient', name: [{ family: 'Old' }] }, 'sb');
  const markerMs = Date.parse(marker.meta?.lastUpdated as string);
  // `_since` splits at a millisecond: let the clock pass the marker's before writing what must be exported.
  while (Date.now() <= markerMs + 1) await new Promise((r) => setImmediate(r));
  const fresh = await gw.create({ resourceType: 'Patient', name: [{ family: 'Fresh' }] }, 'sb');
  await gw.create({ resourceType: 'Observation', status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${fresh.id}` } }, 'sb');
  const group = await gw.create({ resourceType: 'Group', type: 'person', actual: true, member: [{ entity: { reference: `Patient/${fresh.id}` } }] }, 'sb');

  const dir = tempDir(t);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { a: a.connectionString(), b: b.connectionString() } }));
  const since = new Date(markerMs + 1).toISOString();
  const changed = await runCli(t, ['export', '--config', join(dir, 'fhirgate.json'), '--source-name', 'b', '--since', since, '--out', join(dir, 'since')]);
  assert.equal(changed.code, 0, changed.stderr);
  const files = filesOf(join(dir, 'since'));
  assert.deepEqual(Object.keys(files), ['Group.ndjson', 'Observation.ndjson', 'Patient.ndjson']);
  assert.deepEqual(files['Patient.ndjson']!.map((p) => p.id), [fresh.id]);
  assert.equal(a.stats.requests.byMethod.DELETE, undefined, 'source a was not asked');

  const inGroup = await runCli(t, ['export', '--config', join(dir, 'fhirgate.json'), '--source-name', 'b', '--level', `group:${group.id}`, '--type', 'Patient', '--out', join(dir, 'group')]);
  assert.equal(inGroup.code, 0, inGroup.stderr);
  assert.deepEqual(filesOf(join(dir, 'group')), { 'Patient.ndjson': [fresh] });

  const several = await runCli(t, ['export', '--config', join(dir, 'fhirgate.json'), '--out', join(dir, 'x')]);
  assert.equal(several.code, 2);
  assert.match(several.stderr, /there are 2 sources \(a, b\); pick one with --source-name/);
});

test('error files go to OperationOutcome.error.ndjson; a file cut mid-line fails with exit 1, keeps no file and shows no secret', async (t) => {
  const P = (id: string) => ({ resourceType: 'Patient', id });
  const withErrors = await bulkServer(t, { files: { '/files/Patient.ndjson': ndjson([P('1'), P('2')]), '/files/error.ndjson': ndjson([OUTCOME('not-found', 'Group/x not found')]) } });
  const dir = tempDir(t);
  const ok = await runCli(t, ['export', withErrors.connectionString, '--out', join(dir, 'ok')]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(Object.keys(filesOf(join(dir, 'ok'))), ['OperationOutcome.error.ndjson', 'Patient.ndjson']);
  assert.equal(filesOf(join(dir, 'ok'))['OperationOutcome.error.ndjson']![0]!.resourceType, 'OperationOutcome');

  const cut = await bulkServer(t, {
    files: {
      '/files/Observation.ndjson': ndjson([{ resourceType: 'Observation', id: 'o1' }]),
      '/files/Patient.ndjson': (res) => {
        res.writeHead(200, { 'content-type': 'application/fhir+ndjson' });
        res.end(`${JSON.stringify(P('1'))}\n{"resourceType":"Pat`);
      },
    },
  });
  const failed = await runCli(t, ['export', cut.connectionString, '--out', join(dir, 'cut')]);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /^fhirgate export: .*the file ends in the middle of line 2/);
  assert.doesNotMatch(failed.stderr, /s3cret|\n\s+at /, 'no secret, no stack trace');
  assert.deepEqual(readdirSync(join(dir, 'cut')), [], 'a failed export keeps no file, not even the complete ones');

  const hostile = await bulkServer(t, { files: { '/files/Patient.ndjson': ndjson([{ resourceType: '../../escape', id: '1' }]) } });
  const refused = await runCli(t, ['export', hostile.connectionString, '--out', join(dir, 'hostile')]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /fhirgate export: a line of an export file has a resourceType that is not a FHIR R4 or R4B resource type/);
  assert.deepEqual(readdirSync(dir).sort(), ['cut', 'hostile', 'ok']);
  assert.deepEqual(readdirSync(join(dir, 'hostile')), []);
});

test('SIGINT while the server prepares the export cancels it: the job is deleted, exit 130, no file', async (t) => {
  const sb = await sandbox(t, { exportPolls: 1000, exportRetryAfterSeconds: 1 });
  const out = join(tempDir(t), 'export');
  const run = startCli(t, ['export', sb.connectionString(), '--out', out]);
  // Kick-off and a first status request (both GET) mean the job exists on the server.
  while ((sb.stats.requests.byMethod.GET ?? 0) < 2 && run.child.exitCode === null) await sleep(20);
  run.child.kill('SIGINT');
  assert.equal(await run.exited, 130);
  assert.match(run.stderr(), /fhirgate export: cancelled; the export job was deleted on the server/);
  assert.equal(sb.stats.requests.byMethod.DELETE, 1);
  assert.deepEqual(readdirSync(out), []);
});

test('bad input on the command line (connection string, type, level, since, a used folder, no source) is exit 2 naming its option', async (t) => {
  const dir = tempDir(t);
  const secretString = 'fhir://ehr.example.org/r4/?client_id=app&client_secret=very-secret-value&token_url=http://ehr.example.org/token';
  const cases: Array<[string[], number, RegExp]> = [
    [['export', secretString], 2, /^fhirgate export: <connection-string>: .*token_url/],
    [['export', 'http://not-fhir'], 2, /^fhirgate export: <connection-string>: /],
    [['export', '--source', `ehr=${secretString}`], 2, /^fhirgate export: --source ehr: .*token_url/],
    [['export', 'fhir://localhost:1/fhir/', '--type', 'Patient,Pateint'], 2, /^fhirgate export: --type: "Pateint" is not a FHIR R4 or R4B resource type \(did you mean Patient\?\)/],
    [['export', 'fhir://localhost:1/fhir/', '--type', 'EffectEvidenceSynthesis,Pateint'], 2, /^fhirgate export: --type: "Pateint" is not/],
    [['export', 'fhir://localhost:1/fhir/', '--type', 'Patient,very-secret-value'], 2, /^fhirgate export: --type: the type at position 2 is not a FHIR R4 or R4B resource type/],
    [['export', 'fhir://localhost:1/fhir/', '--level', 'group:'], 2, /^fhirgate export: --level: must be system, patient or group:<id>/],
    [['export', 'fhir://localhost:1/fhir/', '--level', 'everything'], 2, /^fhirgate export: --level: /],
    [['export', 'fhir://localhost:1/fhir/', '--since', 'yesterday'], 2, /^fhirgate export: --since: must be a FHIR date or instant/],
    [['export', 'fhir://localhost:1/fhir/', '--deadline=-5'], 2, /^fhirgate export: --deadline: must be a positive number/],
    [['export'], 2, /export needs a source/],
    [['export', 'fhir://localhost:1/fhir/', 'fhir://localhost:2/fhir/'], 2, /takes one <connection-string>, got 2 arguments/],
    [['export', 'fhir://localhost:1/fhir/', '--source', 'a=fhir://localhost:1/fhir/'], 2, /not both/],
    [['export', '--source', 'a=fhir://localhost:1/fhir/', '--source-name', 'b'], 2, /--source-name: no source has that name; sources: a/],
  ];
  for (const [args, code, message] of cases) {
    const result = await runMain([...args, '--out', join(dir, 'out')], {}, dir);
    assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.ok(!result.stderr.includes('very-secret-value'), 'the secret is never printed');
  }
  assert.ok(!existsSync(join(dir, 'out')), 'a refused command creates no folder');
  mkdirSync(join(dir, 'out'));
  writeFileSync(join(dir, 'out', 'Patient.ndjson'), '');
  const used = await runMain(['export', 'fhir://localhost:1/fhir/', '--out', join(dir, 'out')]);
  assert.equal(used.code, 2);
  assert.match(used.stderr, /--out: .* already holds \.ndjson files/);
  const underAFile = await runMain(['export', 'fhir://localhost:1/fhir/', '--out', join(dir, 'out', 'Patient.ndjson', 'x')]);
  assert.equal(underAFile.code, 2);
  assert.match(underAFile.stderr, /^fhirgate export: --out: .* cannot be used: ENOTDIR\nSee fhirgate export --help\n$/);
});

test('--help documents the argument and every option', async () => {
  const { code, stdout } = await runMain(['export', '--help']);
  assert.equal(code, 0);
  assert.match(stdout, /^Usage: fhirgate export /);
  assert.match(stdout, /<connection-string>/);
  for (const name of [...Object.keys(EXPORT_COMMAND.options), 'help']) assert.match(stdout, new RegExp(`--${name}\\b`), name);
  assert.match(stdout, /OperationOutcome\.error\.ndjson/);
  const top = await runMain(['--help']);
  assert.match(top.stdout, /^ +export +Run a FHIR Bulk Data export/m);
});

test('on a terminal a progress line (files, resources, bytes, elapsed) is redrawn on stderr; the summary goes to stdout', async (t) => {
  const sb = await sandbox(t, { exportPolls: 2 });
  const out = join(tempDir(t), 'export');
  let stderr = '';
  let stdout = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { isTTY: true, write: (s: string) => (stderr += s) }, env: {}, cwd: out };
  const code = await EXPORT_COMMAND.run({ 'connection-string': sb.connectionString(), type: ['Patient'], out }, io);
  assert.equal(code, 0);
  const draws = stderr.split('\r\x1b[K').filter((d) => d !== '');
  assert.ok(draws.length >= 3, 'drawn at the kick-off, at each server progress and at the end');
  assert.ok(draws.some((d) => /; server: in progress/.test(d)), 'the server\'s X-Progress is shown');
  const lines = filesOf(out)['Patient.ndjson']!.length;
  assert.match(draws.at(-1)!, new RegExp(`^1 file\\(s\\), ${lines} resource\\(s\\), \\d+(\\.\\d)? k?B, \\d+\\.\\d s; downloading\\n$`));
  assert.match(stdout, new RegExp(`^Patient\\.ndjson  ${lines} lines`));
  assert.ok(!existsSync(join(out, 'Patient.ndjson.part')));
});

test('control characters from the server never reach the terminal: not from X-Progress in the progress line, nor from an OperationOutcome in the error', async (t) => {
  const hostile = await bulkServer(t, {
    files: { '/files/Patient.ndjson': ndjson([{ resourceType: 'Patient', id: '1' }]) },
    // Node writes header bytes 0x80-0xFF as they are: C1 CSI (erase the screen) and OSC (set the title).
    status: (manifest) => [{ status: 202, headers: { 'x-progress': '50%\x9b2J\x9d0;owned\x9c done', 'retry-after': '0' } }, { status: 200, body: manifest }],
  });
  const out = join(tempDir(t), 'export');
  let stderr = '';
  const io = { stdout: { write: () => true }, stderr: { isTTY: true, write: (s: string) => (stderr += s) }, env: {}, cwd: out };
  assert.equal(await EXPORT_COMMAND.run({ 'connection-string': hostile.connectionString, out }, io), 0);
  const draws = stderr.split('\r\x1b[K').filter((d) => d !== '');
  assert.ok(draws.some((d) => d.endsWith('; server: 50% done')), JSON.stringify(draws));
  assert.doesNotMatch(draws.join(''), /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);

  const failing = await bulkServer(t, { status: () => [{ status: 400, body: OUTCOME('invalid', 'bad job\x1b]0;owned\x07\x1b[31m red') }] });
  const failed = await runCli(t, ['export', failing.connectionString, '--out', join(tempDir(t), 'failed')]);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /^fhirgate export: .*the job failed \(400\): bad job red\n$/);
  assert.doesNotMatch(failed.stderr, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
});
