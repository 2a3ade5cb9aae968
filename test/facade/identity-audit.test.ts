// The audit of identity (issue 35 item 6): every resolution the facade makes for an identity-bound
// caller is an AuditEvent (BALP PatientQuery-like: the identifier as the query entity, each source's
// local patient as a patient entity; an ambiguous source as outcome 4 with the reason, a failed one as
// 8), and every access for the patient names the local patient of that source.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { APIKeyCaller } from '../../src/facade/index.js';
import { facadeHarness } from '../support/facade-harness.js';
import { until } from '../support/test-server.js';
import { ANN, BOB, fourSources, get } from './identity-fixtures.js';

const KEYS = { ann: 'ann-portal-key-0123456789', bob: 'bob-portal-key-0123456789' };
const callers: APIKeyCaller[] = [
  { name: 'ann', apiKey: KEYS.ann, sources: '*', scopes: 'patient/*.rs', patient: { identifier: ANN } },
  { name: 'bob', apiKey: KEYS.bob, sources: '*', scopes: 'patient/*.rs', patient: { identifier: BOB } },
];

const coded = (e: any, code: string) => e.type?.code === code || e.type?.coding?.some((c: any) => c.code === code);
const patients = (event: any): string[] => event.entity.filter((e: any) => coded(e, '1') && e.role?.code === '1').map((e: any) => e.what.reference).sort();
const query = (event: any): string | undefined => {
  const q = event.entity.find((e: any) => e.role?.code === '24')?.query;
  return q === undefined ? undefined : Buffer.from(q, 'base64').toString('utf8');
};
const resolutions = (audits: any[], who: string) => audits.filter((a) => a.agent[0].who.identifier?.value === who && query(a)?.startsWith('GET Patient?identifier='));

test('each resolution is a PatientQuery-like AuditEvent: the identifier as the query, each source\'s local patient as an entity; cached ones too', async (t) => {
  const { sources, identity } = await fourSources(t);
  const h = await facadeHarness(t, sources, { callers }, Object.values(KEYS), { identity });
  assert.equal((await get(`${h.prefix}/all/Observation`, KEYS.ann)).status, 200);
  await until(() => resolutions(h.audits, 'ann').length === 1 && h.audits.some((a) => a.agent[1].who.display === 'FHIR endpoint lab'), 'the resolution and the accesses audited');
  const [resolved] = resolutions(h.audits, 'ann');
  assert.equal(resolved.outcome, '0');
  assert.deepEqual(resolved.meta.profile, ['https://profiles.ihe.net/ITI/BALP/StructureDefinition/IHE.BasicAudit.PatientQuery']);
  assert.equal(resolved.subtype[0].code, 'search-type');
  assert.equal(query(resolved), `GET Patient?identifier=${ANN}`);
  assert.deepEqual(patients(resolved), [`${h.prefix}/ehr/Patient/e-ann`, `${h.prefix}/lab/Patient/l-ann`, `${h.prefix}/research/Patient/r-ann`]);

  // Every access names the local patient of its source.
  const accesses = h.audits.filter((a) => a !== resolved && a.agent[0].who.identifier?.value === 'ann');
  const bySource = Object.fromEntries(accesses.map((a) => [a.agent[1].who.display.replace('FHIR endpoint ', ''), patients(a)]));
  assert.deepEqual(bySource, { ehr: ['Patient/e-ann'], lab: ['Patient/l-ann'], research: ['Patient/r-ann'] });
  assert.ok(accesses.every((a) => a.meta?.profile?.[0]?.endsWith('PatientQuery')));

  assert.equal((await get(`${h.prefix}/lab/Observation`, KEYS.ann)).status, 200);
  await until(() => resolutions(h.audits, 'ann').length === 2, 'the second resolution audited');
  const cached = resolutions(h.audits, 'ann')[1];
  assert.equal(query(cached), `GET Patient?identifier=${ANN} (cached)`);
  assert.equal(cached.agent[1].who.display, 'FHIR endpoint lab', 'audited at the base asked');
  assert.deepEqual(patients(cached), patients(resolved));
  const labRead = h.audits.filter((a) => a.agent[1].who.display === 'FHIR endpoint lab' && a !== cached).at(-1);
  assert.deepEqual(patients(labRead), ['Patient/l-ann']);
});

test('an ambiguous source is outcome 4 with the reason; a source that failed during resolution is outcome 8, named', async (t) => {
  const { sandboxes, sources, identity } = await fourSources(t);
  const h = await facadeHarness(t, sources, { callers }, Object.values(KEYS), { identity });
  assert.equal((await get(`${h.prefix}/all/Observation`, KEYS.bob)).status, 200);
  await until(() => resolutions(h.audits, 'bob').length === 1, 'the resolution audited');
  const [ambiguous] = resolutions(h.audits, 'bob');
  assert.equal(ambiguous.outcome, '4');
  assert.match(ambiguous.outcomeDesc, /source "research" ambiguous: .*r-bob-1.*r-bob-2|source "research" ambiguous: .*2 different records/);
  assert.equal(ambiguous.meta, undefined, 'a failure carries no BALP profile');
  assert.deepEqual(patients(ambiguous), [`${h.prefix}/ehr/Patient/shared-1`], 'Bob\'s one clear record');

  sandboxes.lab!.faults.failNext(1, 503);
  assert.equal((await get(`${h.prefix}/all/Observation`, KEYS.ann)).status, 200);
  await until(() => resolutions(h.audits, 'ann').length === 1, 'the resolution audited');
  const [failed] = resolutions(h.audits, 'ann');
  assert.equal(failed.outcome, '8');
  assert.match(failed.outcomeDesc, /source "lab" failed: /);
  assert.deepEqual(patients(failed), [`${h.prefix}/ehr/Patient/e-ann`, `${h.prefix}/research/Patient/r-ann`]);
});
