import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bundle, BundleEntry, OperationOutcome } from '../../../src/fhir/index.js';
import { aggregateSources, type AsyncFHIRGateway, type AsyncFHIRGatewayOptions, SOURCE_TAG_SYSTEM } from '../../../src/gateway/index.js';
import { recordingDispatcher } from '../../support/recording-dispatcher.js';
import { startApp } from '../../support/serve.js';
import { identityGateway, MRN } from './fixtures.js';

/** The documented handler: each source searched with its own local id (`patient.ids`), or the one id of `patient_id`. */
function registerHandler(gw: AsyncFHIRGateway, calls: unknown[][]): void {
  gw.aggregate('Observation', async (patientId, sources = gw.sourceNames, patient) => {
    calls.push([patientId, sources, patient?.ids]);
    const parts = await Promise.all(
      sources.map((s) => aggregateSources(gw, { resourceType: 'Observation', params: { patient: patient?.ids[s] ?? patientId }, sources: [s] })),
    );
    return { resourceType: 'Bundle', type: 'searchset', entry: parts.flatMap((b) => b.entry ?? []) };
  });
}

async function served(t: import('node:test').TestContext, options: AsyncFHIRGatewayOptions = {}) {
  const { gw, sandboxes } = await identityGateway(t, ['ehr', 'lab', 'research'], options);
  const calls: unknown[][] = [];
  registerHandler(gw, calls);
  const { base } = await startApp(t, options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }, (app) => app.registerGateway(gw, { path: '/fhir' }));
  const get = async (query: string) => {
    const res = await fetch(`${base}/fhir/aggregate/Observation?${query}`);
    return { status: res.status, body: (await res.json()) as Bundle & Pick<OperationOutcome, 'issue'> };
  };
  return { gw, sandboxes, calls, get };
}

const rows = (bundle: Bundle) =>
  (bundle.entry ?? []).map((e: BundleEntry) => `${e.resource?.resourceType}/${e.resource?.id}@${e.resource?.meta?.tag?.find((tag) => tag.system === SOURCE_TAG_SYSTEM)?.code}`).sort();

test('patient_identifier: each source is asked with its own local id, and only the sources that hold the patient', async (t) => {
  const { get, calls } = await served(t);
  const { status, body } = await get(`patient_identifier=${encodeURIComponent(`${MRN}|100`)}&sources=ehr,lab,research`);
  assert.equal(status, 200);
  assert.deepEqual(rows(body), ['Observation/e-ann-obs@ehr', 'Observation/l-ann-obs@lab', 'Observation/r-ann-obs@research']);
  assert.deepEqual(calls, [[`${MRN}|100`, ['ehr', 'lab', 'research'], { ehr: 'e-ann', lab: 'l-ann', research: 'r-ann' }]]);
});

test('an ambiguous source is not asked and is named in an OperationOutcome entry; a person sharing a local id is never shown', async (t) => {
  const { get, calls } = await served(t);
  const { status, body } = await get(`patient_identifier=${encodeURIComponent(`${MRN}|200`)}`);
  assert.equal(status, 200);
  // Bob is shared-1 in ehr; shared-1 in lab is Carol (absent for Bob); research holds two Bobs (refused).
  assert.deepEqual(rows(body), ['Observation/e-bob-obs@ehr', 'OperationOutcome/undefined@research']);
  assert.deepEqual(calls, [[`${MRN}|200`, ['ehr'], { ehr: 'shared-1' }]]);
  const outcome = body.entry?.find((e) => e.search?.mode === 'outcome')?.resource as OperationOutcome;
  assert.equal(outcome.issue[0]?.code, 'multiple-matches');
  assert.match(outcome.issue[0]?.diagnostics ?? '', /source "research" was not asked: the patient is ambiguous there: .* is carried by 2 different records/);
});

test('a source that fails during resolution is named and not asked; the seed patient_id path still sends one id to every source', async (t) => {
  const dispatcher = recordingDispatcher();
  const { get, calls, sandboxes } = await served(t, { maxRetries: 0, events: true, dispatcher });
  sandboxes['lab']!.faults.failNext(1, 503);
  const byIdentifier = await get(`patient_identifier=${encodeURIComponent(`${MRN}|100`)}&sources=ehr&sources=lab`);
  assert.equal(byIdentifier.status, 200);
  assert.deepEqual(rows(byIdentifier.body), ['Observation/e-ann-obs@ehr', 'OperationOutcome/undefined@lab']);
  const outcome = byIdentifier.body.entry?.find((e) => e.search?.mode === 'outcome')?.resource as OperationOutcome;
  assert.match(outcome.issue[0]?.diagnostics ?? '', /source "lab" was not asked: .*the server answered HTTP 503/);
  const event = dispatcher.events.find(([name]) => name === 'fhir.observation.aggregate')?.[1];
  assert.equal(event?.['patient_identifier'], `${MRN}|100`);
  assert.equal(event?.['patient_ids'], 'ehr=e-ann');
  assert.equal(event?.['refused'], 'lab');
  assert.ok(dispatcher.events.some(([name]) => name === 'fhir.patient.resolve'));
  const byId = await get('patient_id=shared-1&sources=ehr,lab');
  assert.equal(byId.status, 200);
  assert.deepEqual(rows(byId.body), ['Observation/e-bob-obs@ehr', 'Observation/l-carol-obs@lab'], 'patient_id is one id for all sources, as documented');
  assert.deepEqual(calls.at(-1), ['shared-1', ['ehr', 'lab'], undefined]);
});

test('no source holds the patient: the handler is not called and the answer is an empty searchset', async (t) => {
  const { get, calls } = await served(t);
  const { status, body } = await get(`patient_identifier=${encodeURIComponent(`${MRN}|404`)}`);
  assert.equal(status, 200);
  assert.equal(body.type, 'searchset');
  assert.equal(body.total, 0);
  assert.deepEqual(calls, []);
});

test('a bad identifier, both parameters, an unknown source, or a gateway without identity settings answer 400', async (t) => {
  const { get } = await served(t);
  const other = await get(`patient_identifier=${encodeURIComponent('http://other.example/id|1')}`);
  assert.equal(other.status, 400);
  assert.match(other.body.issue[0]?.diagnostics ?? '', /^patient_identifier: the system is not one of the gateway's identity.systems/);
  assert.equal((await get('patient_identifier=nobar')).status, 400);
  assert.equal((await get(`patient_identifier=${encodeURIComponent(`${MRN}|1`)}&patient_id=1`)).status, 400);
  const unknown = await get(`patient_identifier=${encodeURIComponent(`${MRN}|1`)}&sources=nowhere`);
  assert.equal(unknown.status, 400);
  const { gw: plain } = await identityGateway(t, ['ehr'], { identity: undefined });
  plain.aggregate('Observation', () => ({ resourceType: 'Bundle', type: 'searchset' }));
  const { base } = await startApp(t, {}, (app) => app.registerGateway(plain, { path: '/fhir' }));
  const res = await fetch(`${base}/fhir/aggregate/Observation?patient_identifier=${encodeURIComponent(`${MRN}|1`)}`);
  assert.equal(res.status, 400);
  assert.match(((await res.json()) as OperationOutcome).issue[0]?.diagnostics ?? '', /needs the gateway's identity settings/);
});
