/**
 * The demo's parts, started in this process: what the handlers and services answer when a source fails
 * or a patient is unknown, the audit trail, the curl rendering, and a clean close.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import type { Bundle, OperationOutcome, Patient } from '../../src/index.js';
import { auditFields } from '../../examples/demo/audit.js';
import { CDS_SERVICE_ID } from '../../examples/demo/cds.js';
import { SUMMARY_EXTENSION_URL } from '../../examples/demo/handlers.js';
import { problemsIn } from '../../examples/demo/notereader.js';
import { toCurl } from '../../examples/demo/requests.js';
import { startDemo, type Demo } from '../../examples/demo/start-demo.js';
import { captureLogger } from '../support/logger.js';
import { curlToFetch } from '../support/demo-process.js';
import { withoutTraceId } from '../support/trace-ids.js';
import type { EventPayload } from '../../src/events/types.js';

async function started(t: { after(fn: () => unknown): void }, logger = captureLogger()): Promise<Demo> {
  const demo = await startDemo({ port: 0, logger });
  t.after(() => demo.close());
  return demo;
}

async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  assert.equal(res.status, 200, `${url} -> ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

function cdsCall(demo: Demo, patientId: string): Promise<{ cards: { summary: string; detail?: string; indicator: string }[] }> {
  return getJson(`${demo.origin}/cds/cds-services/${CDS_SERVICE_ID}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ hook: 'patient-view', hookInstance: crypto.randomUUID(), context: { userId: 'Practitioner/x', patientId } }),
  });
}

test('an aggregate still answers 200 when ehr-b fails, with ehr-a\'s resources and an outcome naming ehr-b', async (t) => {
  const demo = await started(t);
  demo.sources.list[1].sandbox.faults.failNext(10, 500);
  t.after(() => demo.sources.list[1].sandbox.faults.reset());
  const bundle = await getJson<Bundle>(`${demo.origin}/fhir/aggregate/Condition?patient_id=a-patient-1`);
  const outcomes = (bundle.entry ?? []).filter((e) => e.search?.mode === 'outcome');
  assert.equal(outcomes.length, 1);
  assert.match(String((outcomes[0]?.resource as OperationOutcome).issue[0]?.diagnostics), /^source "ehr-b" failed: the server answered HTTP 500$/);
  assert.equal(bundle.total, 2, 'the two conditions of ehr-a');
});

test('the CDS card names a failing source, says when the patient could not be looked up, and when no source knows them', async (t) => {
  const demo = await started(t);
  const healthy = await cdsCall(demo, 'b-patient-4');
  assert.equal(healthy.cards[0]?.summary, 'Élodie Dubois: 1 active problem(s) at 1 source(s)');
  assert.equal(healthy.cards[0]?.indicator, 'info');
  demo.sources.list[0].sandbox.faults.failNext(10, 500);
  t.after(() => demo.sources.list[0].sandbox.faults.reset());
  const degraded = await cdsCall(demo, 'b-patient-4');
  assert.match(String(degraded.cards[0]?.detail), /^- Hypertensive disorder \(ehr-b\)\n- \*source "ehr-a" failed: the server answered HTTP 500\*$/);
  const unreadable = await cdsCall(demo, 'a-patient-2');
  assert.equal(unreadable.cards[0]?.summary, 'Patient/a-patient-2 could not be looked up at ehr-a');
  assert.equal(unreadable.cards[0]?.indicator, 'warning');
  demo.sources.list[0].sandbox.faults.reset();
  const unknown = await cdsCall(demo, 'nobody-1');
  assert.equal(unknown.cards[0]?.summary, 'No connected EHR knows Patient/nobody-1');
});

test('the transform summary of a patient with no active condition says so', async (t) => {
  const demo = await started(t);
  const patient = await getJson<Patient>(`${demo.origin}/fhir/transform/Patient/b-patient-3?source=ehr-b`);
  const parts = patient.extension?.find((e) => e.url === SUMMARY_EXTENSION_URL)?.extension ?? [];
  assert.equal(parts.find((e) => e.url === 'activeConditions')?.valueInteger, 0);
  assert.equal(parts.filter((e) => e.url === 'lastVitalSign').length, 2, 'heart rate and body weight');
  assert.match(String(parts.find((e) => e.url === 'text')?.valueString), /^Yui Tanaka, \d+ years, 0 active condition\(s\), last vital signs: Body weight/);
});

test('the log gets an info access line per request and an info audit line per event; close() removes the key file and is idempotent', async (t) => {
  const log = captureLogger();
  const demo = await started(t, log);
  assert.ok(existsSync(demo.sources.keyPath));
  await getJson(`${demo.origin}/fhir/transform/Patient/a-patient-1?source=ehr-a`);
  await Promise.all([demo.close(), demo.close()]);
  assert.equal(existsSync(demo.sources.keyPath), false);
  const events = log.lines.filter((l) => l.message === 'event');
  const transform = events.find((l) => l.fields.event === 'fhir.patient.transform');
  assert.deepEqual({ ...transform, fields: withoutTraceId(transform?.fields as EventPayload) }, {
    level: 'info',
    message: 'event',
    fields: { event: 'fhir.patient.transform', resource_type: 'Patient', resource_id: 'a-patient-1', source: 'ehr-a', operation: 'transform' },
  });
  const access = log.lines.filter((l) => l.message === 'request');
  assert.equal(access.length, 1, JSON.stringify(log.lines));
  assert.equal(access[0]?.level, 'info');
  assert.equal(access[0]?.fields.route, '/fhir/transform/:type/:id');
  assert.equal(access[0]?.fields.status, 200);
  assert.ok(log.lines.every((l) => !/secret|token=|Bearer/.test(JSON.stringify(l))), JSON.stringify(log.lines));
});

test('auditFields leaves out credential-like fields and empty values, clips long ones, and keeps numbers', () => {
  const fields = auditFields(['x.y', { access_token: 'abc', client_secret: 's', api_key: 'k', note: 'a'.repeat(100), empty: null, gone: undefined, n: 3, event: 'spoof' }]);
  assert.deepEqual(fields, { event: 'x.y', note: `${'a'.repeat(80)}…`, n: 3 });
});

test('the write routes create, update and delete a Patient at a source, and refuse an unknown source or a non-Patient body', async (t) => {
  const demo = await started(t);
  const json = { 'content-type': 'application/fhir+json' };
  const created = await fetch(`${demo.origin}/demo/ehr-b/Patient`, { method: 'POST', headers: json, body: JSON.stringify({ name: [{ family: 'Roe' }] }) });
  assert.equal(created.status, 201);
  const patient = (await created.json()) as Patient;
  assert.equal(created.headers.get('location'), `/demo/ehr-b/Patient/${patient.id}`);
  const updated = await getJson<Patient>(`${demo.origin}/demo/ehr-b/Patient/${patient.id}`, { method: 'PUT', headers: json, body: JSON.stringify({ ...patient, active: false }) });
  assert.equal(updated.active, false);
  assert.notEqual(updated.meta?.versionId, patient.meta?.versionId);
  assert.deepEqual(await getJson(`${demo.origin}/demo/ehr-b/Patient/${patient.id}`, { method: 'DELETE' }), { deleted: true });
  const gone = await fetch(`${demo.origin}/fhir/transform/Patient/${patient.id}?source=ehr-b`);
  assert.equal(gone.status, 410, 'the sandbox says the deleted patient is gone');
  await gone.arrayBuffer();
  const unknown = await fetch(`${demo.origin}/demo/ehr-z/Patient/x`, { method: 'DELETE' });
  assert.equal(unknown.status, 404);
  assert.deepEqual(await unknown.json(), { error: 'unknown source; sources: ehr-a, ehr-b' });
  const wrong = await fetch(`${demo.origin}/demo/ehr-a/Patient`, { method: 'POST', headers: json, body: JSON.stringify({ resourceType: 'Observation' }) });
  assert.equal(wrong.status, 400);
  assert.deepEqual(await wrong.json(), { error: 'resourceType must be Patient' });
});

test('problemsIn finds the problems a note mentions and skips the listed ones', () => {
  const found = problemsIn('High blood pressure; diabetes; asthma.', new Set(['195967001']));
  assert.deepEqual(found.map((p) => p.code?.code), ['38341003', '44054006']);
});

test('toCurl quotes every word, so the command parses back to the same request; a single quote is refused', () => {
  const request = { kind: 'cds', title: 't', method: 'POST', path: '/p?q=1&r=2', headers: { 'content-type': 'application/json' }, body: '{"a": "b c"}' } as const;
  const { url, init } = curlToFetch(toCurl('http://h:1', request));
  assert.equal(url, 'http://h:1/p?q=1&r=2');
  assert.deepEqual(init, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a": "b c"}' });
  assert.equal(toCurl('http://h:1', { kind: 'soap', title: 't', method: 'POST', path: '/x' }), "curl -s -X POST 'http://h:1/x'");
  assert.throws(() => toCurl('http://h:1', { ...request, body: "it's" }), RangeError);
});

test('startDemo refuses bad options before starting anything', async () => {
  await assert.rejects(startDemo({ port: 70000 }), { name: 'RangeError', message: /options\.port/ });
  await assert.rejects(startDemo({ host: '' }), { name: 'TypeError', message: /options\.host/ });
  await assert.rejects(startDemo({ logger: 'yes' as never }), { name: 'TypeError', message: /options\.logger/ });
});
