/**
 * Runs every example and checks that it exits 0 and prints the lines that show it did its job, so an
 * example that silently does nothing fails. `sync-gateway.ts` runs exactly as a newcomer runs an example
 * (`node --import tsx examples/<file>.ts`, and its sandbox child process the same way); the others run in
 * the tests' running form (see test/support/code-tree.ts: compiled under `npm test`, without tsx's
 * half second of CPU per process).
 */
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOADER, ROOT, treeFile } from '../support/code-tree.js';

/** A safety net only: an example normally ends in a second or two. */
const SAFETY_TIMEOUT_MS = 90_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The example run with the newcomer's own command. */
const NEWCOMER_RUN = 'sync-gateway.ts';

/** Runs `examples/<file>` in a child process with the examples' own sandbox (no outside settings). */
function runExample(file: string, args: readonly string[] = [], nodeArgs: readonly string[] = []): Promise<Run> {
  const env = { ...process.env };
  delete env.FHIR_CONNECTION_STRING;
  delete env.FHIRGATE_API_KEYS;
  return new Promise((resolve, reject) => {
    const command = file === NEWCOMER_RUN ? ['--import', 'tsx', ...nodeArgs, `examples/${file}`] : [...LOADER, ...nodeArgs, treeFile(`examples/${file.replace(/\.ts$/, '')}`)];
    const child = spawn(process.execPath, [...command, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: SAFETY_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs an example and asserts a clean exit and every `expected` pattern in its output. */
async function check(file: string, expected: readonly RegExp[], args: readonly string[] = []): Promise<string> {
  const run = await runExample(file, args);
  const output = `--- stdout\n${run.stdout}--- stderr\n${run.stderr}`;
  assert.equal(run.signal, null, `${file} was killed by ${run.signal} (safety time-out?)\n${output}`);
  assert.equal(run.code, 0, `${file} exited with ${run.code}\n${output}`);
  for (const pattern of expected) assert.match(run.stdout, pattern, `${file} did not print ${pattern}\n${output}`);
  return run.stdout;
}

test('sync-gateway searches, reads, creates, updates and deletes without a Promise, sandbox in a child process', async () => {
  const out = await check('sync-gateway.ts', [
    /^source "ehr": sandbox at http:\/\/127\.0\.0\.1:\d+\/fhir\/R4 \(child process\)$/m,
    /^Patient\/a-patient-1: Peter James Chalmers, born 1974-12-25$/m,
    /^created Patient\/\S+, updated to active=true, deleted: true$/m,
    /^read Patient\/no-such-patient: ERR_FHIR_HTTP 404$/m,
  ]);
  assert.equal(out.match(/^Patient\/a-patient-\d: /gm)?.length, 3, out);
});

test('async-gateway-modify creates, reads, searches, modifies and deletes a patient', async () => {
  await check('async-gateway-modify.ts', [
    /^created Patient\/[A-Za-z0-9\-.]+$/m,
    /^read Patient\/\S+: Ada Example, active=false$/m,
    /^search family=Example: \d+ match\(es\), ours among them: true$/m,
    /^modified Patient\/\S+: active=true, version 2$/m,
    /^deleted Patient\/\S+: true$/m,
    /^read after delete: ERR_FHIR_HTTP (404|410)/m,
  ]);
});

test('transform serves the patient with a computed summary extension over HTTP', async () => {
  await check('transform.ts', [
    /^GET http:\/\/127\.0\.0\.1:\d+\/fhir\/transform\/Patient\/a-patient-1\?source=ehr$/m,
    /^-> 200 application\/fhir\+json/m,
    /^summary extension: Peter James Chalmers, male, born 1974-12-25$/m,
  ]);
});

test('aggregate merges two sources, then reports the failing one in an outcome entry', async () => {
  const out = await check('aggregate.ts', [
    /^both sources up: total 3$/m,
    /^ehr-b failing: total 2$/m,
    /^ {2}failed source: source "ehr-b" failed: .*503/m,
  ]);
  const [up, failing] = out.split(/^ehr-b failing/m);
  assert.equal(up?.match(/^ {2}ehr-a: Condition\//gm)?.length, 2);
  assert.equal(up?.match(/^ {2}ehr-b: Condition\//gm)?.length, 1);
  assert.equal(failing?.match(/^ {2}ehr-a: Condition\//gm)?.length, 2);
  assert.doesNotMatch(failing ?? '', /^ {2}ehr-b: /m);
});

test('custom-route answers a summary from the injected gateway, and 404 for an unknown patient', async () => {
  const out = await check('custom-route.ts', [
    /^GET \/patients\/a-patient-1\/summary -> 200 /m,
    /^GET \/patients\/no-such-patient\/summary -> 404 /m,
  ]);
  const body = (id: string): unknown => JSON.parse(new RegExp(`^GET /patients/${id}/summary -> \\d+ (.*)$`, 'm').exec(out)?.[1] ?? 'null');
  assert.deepEqual(body('a-patient-1'), {
    id: 'a-patient-1',
    name: 'Peter James Chalmers',
    birthDate: '1974-12-25',
    problems: ['Hypertensive disorder', 'Diabetes mellitus type 2'],
  });
  assert.equal((body('no-such-patient') as { error?: { code?: string } }).error?.code, 'ERR_FHIR_HTTP');
});

test('cds-hooks lists the service in discovery and answers a patient-view call with a card', async () => {
  await check('cds-hooks.ts', [
    /^discovery: problem-count \(patient-view\)$/m,
    /^POST http:\/\/127\.0\.0\.1:\d+\/cds\/cds-services\/problem-count -> 200$/m,
    /^card \[warning\] Chalmers: 2 problem\(s\) on the list$/m,
    /^ {2}- Hypertensive disorder$/m,
  ]);
});

test('notereader answers a ProcessDocument call with the problems found in the note added', async () => {
  await check('notereader.ts', [
    /^POST http:\/\/127\.0\.0\.1:\d+\/notereader\/ \(SOAPAction ProcessDocument\) -> 200$/m,
    /^problem list of Example: Asthma, Hypertensive disorder$/m,
  ]);
});

test('events-audit-log writes one audit line per gateway event, then removes its handler', async () => {
  const out = await check('events-audit-log.ts', [
    /^AUDIT \S+ fhir\.patient\.search Patient source=ehr results=2$/m,
    /^AUDIT \S+ fhir\.patient\.read Patient\/a-patient-1 source=ehr$/m,
    /^AUDIT \S+ fhir\.condition\.search Condition source=ehr results=\d+$/m,
    /^audit handler removed$/m,
  ]);
  assert.equal(out.match(/^AUDIT /gm)?.length, 5, out);
});

test('smart-backend discovers the token endpoint, publishes both keys, and rotates to the next one', async () => {
  const out = await check('smart-backend.ts', [
    /^JWKS: [\w-]{43} \(ES384\), [\w-]{43} \(RS384\); public, max-age=300$/m,
    /^token endpoint discovered from http:\/\/127\.0\.0\.1:\d+\/fhir\/R4\/\.well-known\/smart-configuration \(1 request\)$/m,
    /^read Patient\/a-patient-1, assertion signed with kid [\w-]{43}$/m,
    /^rotated: [\w-]{43} \(RS384\) signs from the next token request on$/m,
    /^read Patient\/a-patient-2, assertion signed with kid [\w-]{43}$/m,
    /^JWKS after rotation: [\w-]{43} \(RS384\); public, max-age=300$/m,
  ]);
  const kid = (pattern: RegExp): string | undefined => pattern.exec(out)?.[1];
  const [current, next] = [kid(/^JWKS: ([\w-]+) /m), kid(/^JWKS: [\w-]+ \(ES384\), ([\w-]+) /m)];
  assert.notEqual(current, next);
  assert.equal(kid(/^read Patient\/a-patient-1, assertion signed with kid ([\w-]+)$/m), current);
  assert.equal(kid(/^rotated: ([\w-]+) /m), next);
  assert.equal(kid(/^read Patient\/a-patient-2, assertion signed with kid ([\w-]+)$/m), next);
  assert.equal(kid(/^JWKS after rotation: ([\w-]+) /m), next);
});

test('real-servers parses every connection string offline and never prints a secret', async () => {
  const out = await check('real-servers.ts', [
    /^epic: FHIR at https:\/\/fhir\.epic\.com\/interconnect-fhir-oauth\/api\/FHIR\/R4; .* with a JWT assertion /m,
    /^epic: .*\(kid "epic-key-2026", jku https:\/\/my-app\.example\.org\/\.well-known\/jwks\.json\)$/m,
    /^medplum: FHIR at https:\/\/api\.medplum\.com\/fhir\/R4; .* client secret \(client_secret_basic\)$/m,
    /^cerner: FHIR at https:\/\/fhir-open\.cerner\.com\/r4\/[0-9a-f-]+; public, no token$/m,
    /^hapi: FHIR at http:\/\/localhost:8080\/fhir, 10 s time-out; public, no token$/m,
    /^a broken string: ERR_CONNECTION_STRING: /m,
  ]);
  assert.doesNotMatch(out, /your-medplum-client-secret|s3cret/);
});

test('real-servers --connect without a network ends in one line saying what failed, exit 1, no stack', async () => {
  const run = await runExample('real-servers.ts', ['--connect'], ['--import', './test/support/no-network.mjs']);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /^cerner: FHIR at /m, 'the offline part ran first');
  assert.equal(run.stderr, 'cerner: the search failed: ERR_NETWORK: GET https://fhir-open.cerner.com/r4/ec2458f2-1e24-41c8-b71b-0e701af7583d/Patient failed: ENOTFOUND\n');
});

test('bulk-export kicks off $export, reports progress, and writes one NDJSON file per type', async () => {
  const out = await check('bulk-export.ts', [
    /^kick-off: \$export types=Patient,Observation,Condition since=2000-01-01T00:00:00Z$/m,
    /^progress: in progress: step 1 of 2$/m,
    /^complete: 3 files, 52 resources, 0 errors, \d+ bytes$/m,
    /^Patient: 5 resource\(s\) written to Patient\.ndjson$/m,
    /^Observation: 40 resource\(s\) written to Observation\.ndjson$/m,
    /^Condition: 7 resource\(s\) written to Condition\.ndjson$/m,
  ]);
  assert.doesNotMatch(out, /export failed/);
});
