// The federated base reads the ids it issues: a federated search gives each resource the id
// `<source>.<id>` (fullUrl at the federated base, relative references qualified the same way), and
// `{federated}/[type]/[id]` reads it back from that one source, through the source's policy, limits and
// audit; a source the caller may not use answers 404. Driven by an unmodified client (fhir-kit-client)
// against the sandbox and an independent server (Medplum's router).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Client } from 'fhir-kit-client';
import type { FHIRFacadeOptions } from '../../src/facade/index.js';
import { facadeHarness } from '../support/facade-harness.js';
import { medplumServer } from '../support/medplum-server.js';
import { sandbox } from '../support/sandbox.js';

const KEYS = { fed: 'federated-key-0123456789', ehrOnly: 'ehr-only-key-0123456789', patient: 'one-patient-key-0123456789', obsOnly: 'obs-only-key-0123456789' };

async function setUp(t: TestContext, extra: Partial<FHIRFacadeOptions> = {}) {
  const ehr = await sandbox(t, { open: true });
  const mp = await medplumServer(t);
  const patient = (await mp.repo.createResource({ resourceType: 'Patient', name: [{ family: 'Medplum' }] } as never)) as { id: string };
  await mp.repo.createResource({ resourceType: 'Observation', status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${patient.id}` } } as never);
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), mp: `fhir://${mp.base.slice('http://'.length)}/` }, {
    callers: [
      { name: 'fed', apiKey: KEYS.fed, sources: '*', scopes: 'system/*.rs' },
      { name: 'ehr-only', apiKey: KEYS.ehrOnly, sources: ['ehr'], scopes: 'system/*.rs' },
      { name: 'one-patient', apiKey: KEYS.patient, sources: ['mp'], scopes: 'system/*.rs', patient: patient.id },
      { name: 'obs-only', apiKey: KEYS.obsOnly, sources: '*', scopes: 'system/Observation.rs' },
    ],
    ...extra,
  }, [...Object.values(KEYS), 's3cr3t-cookie', 'medplum-wrapper']);
  const client = new Client({ baseUrl: `${h.prefix}/all`, customHeaders: { 'x-api-key': KEYS.fed } });
  return { ehr, mp, h, client, patientId: patient.id };
}

const get = (url: string, key: string) => fetch(url, { headers: { 'x-api-key': key } }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));

test('an unmodified client reads back, at the federated base, the id and fullUrl a federated search gave, from each source', async (t) => {
  const { ehr, mp, h, client, patientId } = await setUp(t);
  const bundle = (await client.search({ resourceType: 'Patient', searchParams: { _count: 50 } })) as any;
  const fromMp = bundle.entry.find((e: any) => e.resource.meta.source === `${h.prefix}/mp`);
  const fromEhr = bundle.entry.find((e: any) => e.resource.meta.source === `${h.prefix}/ehr`);
  assert.equal(fromMp.resource.id, `mp.${patientId}`, 'the id names its source');
  assert.equal(fromMp.fullUrl, `${h.prefix}/all/Patient/mp.${patientId}`, 'fullUrl agrees with the id, at the federated base');
  assert.deepEqual(fromMp.link, [{ relation: 'alternate', url: `${h.prefix}/mp/Patient/${patientId}` }], 'where it is written');
  assert.match(fromEhr.resource.id, /^ehr\.a-patient-\d$/);

  const before = mp.requests.length;
  const ehrRead = (await client.read({ resourceType: 'Patient', id: fromEhr.resource.id })) as any;
  assert.deepEqual(ehrRead, fromEhr.resource, 'the read gives what the search gave');
  assert.equal(mp.requests.length, before, 'a read asks its own source only');

  const mpRead = (await client.read({ resourceType: 'Patient', id: fromMp.resource.id })) as any;
  assert.equal(mpRead.id, `mp.${patientId}`);
  assert.equal(mpRead.meta.source, `${h.prefix}/mp`);
  assert.equal(mp.requests.at(-1)!.line, `GET /fhir/R4/Patient/${patientId}`, 'the source was asked for its own id');
  const byFullUrl = await get(fromMp.fullUrl, KEYS.fed);
  assert.equal(byFullUrl.status, 200);
  assert.match(byFullUrl.headers.get('etag') ?? '', /^W\/"/, 'the source\'s ETag comes back');
  const vread = (await client.vread({ resourceType: 'Patient', id: mpRead.id, version: mpRead.meta.versionId })) as any;
  assert.equal(vread.id, mpRead.id);

  const observations = (await client.search({ resourceType: 'Observation', searchParams: { code: 'pulse' } })) as any;
  const pulse = observations.entry.find((e: any) => e.resource.meta.source === `${h.prefix}/mp`).resource;
  assert.equal(pulse.subject.reference, `Patient/mp.${patientId}`, 'a relative reference resolves against the federated base');
  const subject = (await client.resolve({ reference: pulse.subject.reference })) as any;
  assert.equal(subject.id, `mp.${patientId}`);
  assert.equal(subject.name[0].family, 'Medplum');

  const searchesBefore = ehr.stats.requests.byKind.search ?? 0;
  const ofPatient = (await client.search({ resourceType: 'Observation', searchParams: { subject: `Patient/mp.${patientId}` } })) as any;
  assert.deepEqual(ofPatient.entry.map((e: any) => e.resource.id), [pulse.id], 'a search naming a federated id: that source, its own id');
  assert.equal(mp.requests.at(-1)!.line, `GET /fhir/R4/Observation?subject=Patient%2F${patientId}`);
  assert.equal(ehr.stats.requests.byKind.search ?? 0, searchesBefore, 'a source that cannot match was not asked');
  const both = (await client.search({ resourceType: 'Patient', searchParams: { _id: `ehr.a-patient-1,mp.${patientId}` } })) as any;
  assert.deepEqual(both.entry.map((e: any) => e.resource.id).sort(), ['ehr.a-patient-1', `mp.${patientId}`]);
});

test('a federated read is the source\'s read: its policy (another source\'s id is 404, never 403), compartment, audit and rate limit', async (t) => {
  // One token per 5 s: however slowly the burst below goes through, it outruns the refill.
  const { mp, h, patientId } = await setUp(t, { limits: { mp: { perSecond: 0.2, burst: 2 } } });
  const before = mp.requests.length;
  const hidden = await get(`${h.prefix}/all/Patient/mp.${patientId}`, KEYS.ehrOnly);
  assert.equal(hidden.status, 404, 'a source the caller may not use: as if the id did not exist');
  assert.equal(hidden.body.issue[0].code, 'not-found');
  assert.equal(mp.requests.length, before, 'nothing went upstream');
  const refusal = h.audits.at(-1)!;
  assert.equal(refusal.outcome, '4');
  assert.match(refusal.outcomeDesc, /may not use source "mp"/);
  assert.deepEqual(refusal.subtype, [{ system: 'http://hl7.org/fhir/restful-interaction', code: 'read' }]);
  assert.equal((await get(`${h.prefix}/ehr/Patient/a-patient-1`, KEYS.ehrOnly)).status, 200);
  const scoped = await get(`${h.prefix}/all/Patient/ehr.a-patient-1`, KEYS.obsOnly);
  assert.equal(scoped.status, 403, 'a type its scopes do not allow: as at the source base');
  assert.match(scoped.body.issue[0].diagnostics, /scope does not allow read on Patient/);

  assert.equal((await get(`${h.prefix}/all/Patient/nowhere.1`, KEYS.fed)).status, 404, 'an id no source issued');
  assert.equal(h.audits.at(-1)!.outcome, '4');
  assert.match(h.audits.at(-1)!.outcomeDesc, /Patient\/nowhere\.1 names no source/);
  assert.equal((await get(`${h.prefix}/all/Patient/nowhere.1`, 'wrong-key-0123456789abc')).status, 401, 'credentials first');
  assert.equal((await get(`${h.prefix}/all/Patient/ehr.a-patient-1`, KEYS.patient)).status, 404, 'outside the caller\'s compartment: another source than its patient\'s');
  const own = await get(`${h.prefix}/all/Patient/mp.${patientId}`, KEYS.patient);
  assert.equal(own.status, 200, 'its own patient');
  const read = h.audits.at(-1)!;
  assert.equal(read.action, 'R');
  assert.equal(read.outcome, '0');
  assert.deepEqual(read.meta.profile, ['https://profiles.ihe.net/ITI/BALP/StructureDefinition/IHE.BasicAudit.PatientRead']);
  assert.equal(read.agent[1].network.address, `${h.prefix}/mp`, 'audited as the source\'s read');
  assert.equal(read.entity.find((e: any) => e.role?.code === '1').what.reference, `Patient/${patientId}`);

  const started = Date.now();
  const burst = await Promise.all(Array.from({ length: 8 }, () => get(`${h.prefix}/all/Patient/mp.${patientId}`, KEYS.fed)));
  const elapsedSeconds = (Date.now() - started) / 1000;
  // The bucket holds at most its burst of 2 when the burst starts and refills 0.2 a second meanwhile.
  const allowed = 2 + Math.ceil(elapsedSeconds * 0.2);
  assert.deepEqual([...new Set(burst.map((r) => r.status))].filter((s) => s !== 200 && s !== 429), [], 'each answered 200 or 429');
  const refused = burst.filter((r) => r.status === 429);
  assert.ok(refused.length >= 8 - allowed, `the source's rate of 0.2/s (burst 2) refused ${refused.length} of 8 in ${elapsedSeconds} s`);
  assert.ok(refused.length > 0, `the burst outran the refill: ${elapsedSeconds} s`);
  assert.ok(Number(refused[0]!.headers.get('retry-after')) >= 1);
  assert.equal(refused[0]!.headers.get('ratelimit-limit'), '2');
});

test('writes and other paths under the federated base: 405 and 404', async (t) => {
  const { h, patientId } = await setUp(t);
  const put = await fetch(`${h.prefix}/all/Patient/mp.${patientId}`, { method: 'PUT', headers: { 'x-api-key': KEYS.fed, 'content-type': 'application/fhir+json' }, body: `{"resourceType":"Patient","id":"mp.${patientId}"}` });
  assert.equal(put.status, 405);
  await put.arrayBuffer();
  assert.equal((await get(`${h.prefix}/all/Patient/mp.${patientId}/_history`, KEYS.fed)).status, 404);
  assert.equal((await get(`${h.prefix}/all/Pateint/mp.${patientId}`, KEYS.fed)).status, 404);
  assert.equal((await get(`${h.prefix}/all/Patient/mp.${patientId}`, 'wrong-key-0123456789abc')).status, 401);
});
