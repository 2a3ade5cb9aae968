import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSandbox } from '../../src/sandbox/index.js';
import { startCli, tempDir, waitServing } from '../support/run-cli.js';

async function sandbox(t: { after(fn: () => Promise<void>): void }, seed: 'a' | 'b') {
  const s = await startSandbox({ seed });
  t.after(() => s.close());
  return s;
}

test('serve --source a=… --source b=… --port 0 answers HTTP over both sources and stops cleanly on SIGTERM', async (t) => {
  const a = await sandbox(t, 'a');
  const b = await sandbox(t, 'b');
  const run = startCli(t, ['serve', '--source', `a=${a.connectionString()}`, '--source', `b=${b.connectionString()}`, '--port', '0']);
  const serving = await waitServing(run);
  assert.deepEqual(serving.sources, ['a', 'b']);
  assert.match(serving.gateway, /^http:\/\/127\.0\.0\.1:\d+\/fhir$/);

  const status = await fetch(`${serving.gateway}/status`);
  assert.equal(status.status, 200);
  assert.deepEqual(((await status.json()) as { sources: { names: string[] } }).sources.names, ['a', 'b']);
  const metadata = (await (await fetch(`${serving.gateway}/metadata`)).json()) as { fhirVersion: string };
  assert.equal(metadata.fhirVersion, '4.0.1');
  assert.equal((await fetch(serving.docs)).status, 200);
  const root = (await (await fetch(new URL('/', serving.gateway))).json()) as { name: string; gateways: string[] };
  assert.equal(root.name, 'fhirgate');
  assert.deepEqual(root.gateways, ['AsyncFHIRGateway']);

  // One JSON line per request at info, on stdout.
  const lines = run.stdout().trim().split('\n').map((l) => JSON.parse(l) as { msg: string; level: string; route?: string });
  assert.ok(lines.some((l) => l.msg === 'request' && l.level === 'info' && l.route === '/fhir/status'));

  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  assert.match(run.stdout(), /"msg":"stopped"/);
  assert.equal(run.stderr(), '');
});

test('serve takes its API keys from FHIRGATE_API_KEYS when the config sets none', async (t) => {
  const a = await sandbox(t, 'a');
  const run = startCli(t, ['serve', '--source', `a=${a.connectionString()}`, '--port', '0'], { FHIRGATE_API_KEYS: ' env-key-1 , ,env-key-2' });
  const serving = await waitServing(run);
  assert.equal((await fetch(`${serving.gateway}/status`)).status, 401, 'the API key is required');
  assert.equal((await fetch(`${serving.gateway}/status`, { headers: { 'x-api-key': 'env-key-2' } })).status, 200);
  assert.equal((await fetch(`${serving.gateway}/status`, { headers: { authorization: 'Bearer env-key-1' } })).status, 200);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('serve --config: ${ENV} secrets, PORT, a gateway handler module, a CDS module, a NoteReader module and API keys', async (t) => {
  const ehr = await sandbox(t, 'a');
  const dir = tempDir(t);
  const secretFree = ehr.connectionString().replace('client_secret=demo-secret', 'client_secret=${EHR_SECRET}');
  assert.notEqual(secretFree, ehr.connectionString(), 'the sandbox string holds the secret this test moves to the environment');
  writeFileSync(join(dir, 'transform.mjs'), `export default function setup(gw) {
  gw.transform('Patient', async (id, source) => ({ ...(await gw.read('Patient', id, source)), active: false, meta: { tag: [{ code: 'via-cli' }] } }));
}\n`);
  writeFileSync(join(dir, 'cds.mjs'), `export default function (cds, { gateway }) {
  cds.hook('patient-view', { id: 'name-check', description: 'Reads the patient through the gateway' }, async (request) => {
    const patient = await gateway.read('Patient', request.context.patientId);
    return { cards: [{ summary: 'Family ' + patient.name[0].family, indicator: 'info', source: { label: 'cli test' } }] };
  });
}\n`);
  writeFileSync(join(dir, 'notereader.mjs'), `export function setup(nr) { nr.method('ProcessDocument', ({ document }) => ({ document, error: '' })); }\n`);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({
    title: 'CLI test gateway',
    sources: { ehr: secretFree },
    gateway: { path: '/api/fhir', module: './transform.mjs' },
    cds: { module: './cds.mjs' },
    notereader: { path: '/nr', module: './notereader.mjs' },
    apiKeys: ['${GATEWAY_KEY}'],
    cors: { origins: ['https://ehr.example.org'] },
  }));
  const run = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json')], { EHR_SECRET: 'demo-secret', GATEWAY_KEY: 'k-123', PORT: '0' });
  const serving = await waitServing(run);
  assert.match(serving.gateway, /\/api\/fhir$/);
  const origin = new URL(serving.gateway).origin;
  const auth = { authorization: 'Bearer k-123' };

  assert.equal((await fetch(`${serving.gateway}/transform/Patient/a-patient-1?source=ehr`)).status, 401, 'the API key is required');
  const transformed = await fetch(`${serving.gateway}/transform/Patient/a-patient-1?source=ehr`, { headers: auth });
  assert.equal(transformed.status, 200);
  const patient = (await transformed.json()) as { id: string; active: boolean; meta: { tag: Array<{ code: string }> } };
  assert.equal(patient.id, 'a-patient-1');
  assert.equal(patient.active, false);
  assert.equal(patient.meta.tag[0]?.code, 'via-cli');

  const discovery = (await (await fetch(`${origin}/cds/cds-services`)).json()) as { services: Array<{ id: string }> };
  assert.deepEqual(discovery.services.map((s) => s.id), ['name-check']);
  const call = await fetch(`${origin}/cds/cds-services/name-check`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ hook: 'patient-view', hookInstance: crypto.randomUUID(), context: { userId: 'Practitioner/1', patientId: 'a-patient-1' } }),
  });
  assert.equal(call.status, 200);
  assert.match(((await call.json()) as { cards: Array<{ summary: string }> }).cards[0]?.summary ?? '', /^Family /);

  const wsdl = await fetch(`${origin}/nr/?wsdl`);
  assert.equal(wsdl.status, 200);
  assert.match(await wsdl.text(), /ProcessDocument/);
  assert.equal(((await (await fetch(`${origin}/`, { headers: auth })).json()) as { name: string }).name, 'CLI test gateway');
  const preflight = await fetch(`${serving.gateway}/status`, { method: 'OPTIONS', headers: { origin: 'https://ehr.example.org', 'access-control-request-method': 'GET' } });
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://ehr.example.org', 'the config\'s CORS origins apply');
  await preflight.arrayBuffer();
  const foreign = await fetch(`${serving.gateway}/status`, { headers: { ...auth, origin: 'https://evil.example' } });
  assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  await foreign.arrayBuffer();

  assert.ok(!run.stdout().includes('demo-secret') && !run.stderr().includes('demo-secret'), 'the secret is never logged');
  assert.ok(!run.stdout().includes('k-123'), 'the API key is never logged');
  run.child.kill('SIGINT');
  assert.equal(await run.exited, 0);
});

test('serve on a busy port exits 1 with a message naming the port', async (t) => {
  const a = await sandbox(t, 'a');
  const first = startCli(t, ['serve', '--source', `a=${a.connectionString()}`, '--port', '0']);
  const port = new URL((await waitServing(first)).gateway).port;
  const second = startCli(t, ['serve', '--source', `a=${a.connectionString()}`], { PORT: port });
  assert.equal(await second.exited, 1);
  assert.match(second.stderr(), new RegExp(`fhirgate serve: port: ${port} on 127\\.0\\.0\\.1 is in use`));
  assert.doesNotMatch(second.stderr(), /\n\s+at /, 'no stack trace');
});
