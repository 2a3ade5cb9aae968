import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SourceOutcome } from '../../../src/gateway/index.js';
import { recordingDispatcher } from '../../support/recording-dispatcher.js';
import { gatewayOver, identityGateway, ignoringServer, IDENTITY, MRN, searches, SSN } from './fixtures.js';
import { withoutTraceId } from '../../support/trace-ids.js';

/** Each source's outcome in one line: `found e-ann`, `absent`, `ambiguous r-bob-1,r-bob-2`, `failed ERR_NETWORK`. */
const brief = (outcomes: readonly SourceOutcome[]): Record<string, string> =>
  Object.fromEntries(
    outcomes.map((o) => [
      o.source,
      o.status === 'found' ? `found ${o.id}` : o.status === 'ambiguous' ? `ambiguous ${[...o.ids].sort().join(',')}` : o.status === 'failed' ? `failed ${o.code}` : 'absent',
    ]),
  );

test('one identifier finds the same person under a different local id in each of three sources, following replaced-by', async (t) => {
  const { gw } = await identityGateway(t, ['ehr', 'lab', 'research']);
  const r = await gw.resolvePatient({ identifier: `${MRN}|100` });
  assert.equal(r.query, `${MRN}|100`);
  assert.deepEqual(r.identifiers, [`${MRN}|100`]);
  assert.deepEqual(brief(r.outcomes), { ehr: 'found e-ann', lab: 'found l-ann', research: 'found r-ann' });
  assert.equal(r.cached, false);
  const research = r.outcomes.find((o) => o.source === 'research');
  assert.deepEqual(research?.status === 'found' && research.seeAlso, ['r-ann-study'], 'seealso is reported, not merged');
});

test('another person under the same local id is not taken for the patient: the source answers absent', async (t) => {
  const { gw } = await identityGateway(t, ['ehr', 'lab']);
  const r = await gw.resolvePatient({ source: 'ehr', id: 'shared-1' });
  assert.deepEqual(r.identifiers, [`${MRN}|200`]);
  assert.deepEqual(brief(r.outcomes), { ehr: 'found shared-1', lab: 'absent' });
});

test('a source holding two records with the identifier is ambiguous, named with the reason', async (t) => {
  const { gw } = await identityGateway(t, ['ehr', 'lab', 'research']);
  const r = await gw.resolvePatient({ identifier: `${MRN}|200` });
  assert.deepEqual(brief(r.outcomes), { ehr: 'found shared-1', lab: 'absent', research: 'ambiguous r-bob-1,r-bob-2' });
  const research = r.outcomes.find((o) => o.source === 'research');
  assert.match(research?.status === 'ambiguous' ? research.reason : '', /is carried by 2 different records \(Patient\/r-bob-1, Patient\/r-bob-2\)/);
});

test("a local id's identifiers that point to different records in another source make it ambiguous", async (t) => {
  const { gw } = await identityGateway(t, ['ehr', 'lab', 'research']);
  const r = await gw.resolvePatient({ source: 'ehr', id: 'e-ann' });
  assert.deepEqual(r.identifiers, [`${MRN}|100`, `${SSN}|111`]);
  assert.deepEqual(brief(r.outcomes), { ehr: 'found e-ann', lab: 'ambiguous l-ann,l-dan', research: 'found r-ann' });
  const lab = r.outcomes.find((o) => o.source === 'lab');
  assert.match(lab?.status === 'ambiguous' ? lab.reason : '', /identifiers point to different records/);
});

test('a source that is no authority for a system is neither asked nor believed: a planted identifier is ignored', async (t) => {
  const { gw, sandboxes } = await identityGateway(t, ['ehr', 'lab', 'portal']);
  const before = searches(sandboxes['portal']!);
  const byMrn = await gw.resolvePatient({ identifier: `${MRN}|100` });
  assert.deepEqual(brief(byMrn.outcomes), { ehr: 'found e-ann', lab: 'found l-ann', portal: 'absent' });
  assert.equal(searches(sandboxes['portal']!), before, 'the portal is not asked for an MRN');
  // Starting from the portal's record: its MRNs are not believed, so no other source is matched through them.
  const fromPortal = await gw.resolvePatient({ source: 'portal', id: 'planted' });
  assert.deepEqual(fromPortal.identifiers, []);
  assert.deepEqual(brief(fromPortal.outcomes), { ehr: 'absent', lab: 'absent', portal: 'found planted' });
});

test('a source that is down, or answers 500, is failed and named; the others still resolve', async (t) => {
  const { gw, sandboxes } = await identityGateway(t, ['ehr', 'lab', 'research'], { maxRetries: 0 });
  sandboxes['lab']!.faults.failNext(1, 500);
  await sandboxes['research']!.close();
  const r = await gw.resolvePatient({ identifier: `${MRN}|100` });
  // research's token endpoint is down with it: ERR_AUTH_TOKEN, or ERR_NETWORK when a token was cached.
  assert.deepEqual({ ...brief(r.outcomes), research: brief(r.outcomes)['research']?.replace('ERR_AUTH_TOKEN', 'ERR_NETWORK') }, { ehr: 'found e-ann', lab: 'failed ERR_FHIR_HTTP', research: 'failed ERR_NETWORK' });
  const lab = r.outcomes.find((o) => o.source === 'lab');
  assert.equal(lab?.status === 'failed' && lab.reason, 'the server answered HTTP 500');
  assert.doesNotMatch(JSON.stringify(r), /127\.0\.0\.1/, 'no upstream address in the outcomes');
});

test('a server that ignores the identifier parameter makes no one match; one that pages through everyone fails', async (t) => {
  const { gw } = await identityGateway(t, ['ehr'], { identity: { ...IDENTITY, authorities: {} } });
  const flat = await ignoringServer(t, false);
  const paged = await ignoringServer(t, true);
  gw.addSource('flat', flat.cs);
  gw.addSource('paged', paged.cs);
  const r = await gw.resolvePatient({ identifier: `${MRN}|100` });
  assert.deepEqual(brief(r.outcomes), { ehr: 'found e-ann', flat: 'absent', paged: 'failed ERR_FHIR_RESPONSE' });
  assert.equal(flat.count(), 1);
});

test('replaced-by is followed only when the surviving record says it replaces the old one', async (t) => {
  const { gw, sandboxes } = await identityGateway(t, ['research']);
  // The old record claims a survivor that does not confirm: the source is refused, not guessed.
  await fetchJSON(sandboxes['research']!.fhirBase, gw, 'PUT', 'Patient/r-ann', { resourceType: 'Patient', id: 'r-ann', identifier: [{ system: MRN, value: '100' }] });
  const r = await gw.resolvePatient({ identifier: `${MRN}|100` });
  const research = r.outcomes[0];
  assert.equal(research?.status, 'ambiguous');
  assert.match(research?.status === 'ambiguous' ? research.reason : '', /Patient\/r-ann-old is replaced by Patient\/r-ann, which does not say it replaces Patient\/r-ann-old/);
});

test('a resolution is cached: asked again, no source is asked; two gateways sharing a store agree', async (t) => {
  const store = new (await import('../../../src/lib/key-value-store.js')).MemoryStore();
  const { gw, sandboxes } = await identityGateway(t, ['ehr', 'lab', 'research'], { tokenStore: store });
  const first = await gw.resolvePatient({ identifier: `${MRN}|100` });
  const counts = Object.values(sandboxes).map(searches);
  const again = await gw.resolvePatient({ identifier: `${MRN}|100` });
  assert.equal(again.cached, true);
  assert.deepEqual(again.outcomes, first.outcomes);
  const replica = gatewayOver(t, sandboxes, { tokenStore: store });
  const fromReplica = await replica.resolvePatient({ identifier: `${MRN}|100` });
  assert.equal(fromReplica.cached, true);
  assert.deepEqual(fromReplica.outcomes, first.outcomes);
  assert.deepEqual(Object.values(sandboxes).map(searches), counts, 'no source was asked again');
  const unshared = gatewayOver(t, sandboxes);
  assert.equal((await unshared.resolvePatient({ identifier: `${MRN}|100` })).cached, false, 'a gateway without the store asks');
});

test('a cached resolution expires after ttlSeconds, and one with a failed source is not cached', async (t) => {
  const { gw, sandboxes } = await identityGateway(t, ['ehr', 'lab'], { identity: { ...IDENTITY, authorities: {}, ttlSeconds: 0.3 }, maxRetries: 0 });
  await gw.resolvePatient({ identifier: `${MRN}|100` });
  const before = searches(sandboxes['ehr']!);
  await new Promise((resolve) => setTimeout(resolve, 600));
  const later = await gw.resolvePatient({ identifier: `${MRN}|100` });
  assert.equal(later.cached, false);
  assert.equal(searches(sandboxes['ehr']!), before + 1);
  const { gw: gw2, sandboxes: s2 } = await identityGateway(t, ['ehr', 'lab'], { maxRetries: 0 });
  s2['lab']!.faults.failNext(1, 500);
  assert.equal(brief((await gw2.resolvePatient({ identifier: `${MRN}|100` })).outcomes)['lab'], 'failed ERR_FHIR_HTTP');
  const retried = await gw2.resolvePatient({ identifier: `${MRN}|100` });
  assert.equal(retried.cached, false);
  assert.deepEqual(brief(retried.outcomes), { ehr: 'found e-ann', lab: 'found l-ann' });
});

test('ttlSeconds 0 resolves on every call: the shared store is neither read nor written, not even for a replica\'s entry', async (t) => {
  const { MemoryStore } = await import('../../../src/lib/key-value-store.js');
  const store = new MemoryStore();
  const { gw: cached, sandboxes } = await identityGateway(t, ['ehr', 'lab'], { tokenStore: store });
  await cached.resolvePatient({ identifier: `${MRN}|100` });
  const asked: string[] = [];
  const watched = { get: (k: string) => (asked.push(`get ${k.split(':')[1]}`), store.get(k)), set: (k: string, v: string, ms: number) => (asked.push(`set ${k.split(':')[1]}`), store.set(k, v, ms)), setIfAbsent: (k: string, v: string, ms: number) => store.setIfAbsent(k, v, ms) };
  const identity = { ...IDENTITY, authorities: { [MRN]: ['ehr', 'lab'] }, ttlSeconds: 0 };
  const fresh = gatewayOver(t, sandboxes, { tokenStore: watched, identity });
  const before = searches(sandboxes['ehr']!) + searches(sandboxes['lab']!);
  const first = await fresh.resolvePatient({ identifier: `${MRN}|100` });
  const second = await fresh.resolvePatient({ identifier: `${MRN}|100` });
  assert.deepEqual([first.cached, second.cached], [false, false], 'the replica\'s entry in the store is not used');
  assert.deepEqual(brief(second.outcomes), { ehr: 'found e-ann', lab: 'found l-ann' });
  assert.equal(searches(sandboxes['ehr']!) + searches(sandboxes['lab']!), before + 4, 'each call asked both sources');
  assert.deepEqual(asked.filter((a) => a.endsWith('identity')), [], 'no identity entry was read or written');
});

test('every resolution, cached or not, sends fhir.patient.resolve with the query and per-source ids, never a token', async (t) => {
  const dispatcher = recordingDispatcher();
  const { gw } = await identityGateway(t, ['ehr', 'lab', 'research'], { events: true, dispatcher });
  await gw.resolvePatient({ identifier: `${MRN}|200` });
  await gw.resolvePatient({ identifier: `${MRN}|200` });
  const resolves = dispatcher.events.filter(([name]) => name === 'fhir.patient.resolve').map(([, p]) => p);
  assert.equal(resolves.length, 2);
  const [first, second] = resolves;
  assert.deepEqual({ ...withoutTraceId(first), outcomes: undefined }, {
    resource_type: 'Patient',
    operation: 'resolve',
    query: `${MRN}|200`,
    query_kind: 'identifier',
    source: null,
    resource_id: null,
    identifiers: `${MRN}|200`,
    sources: 'ehr,lab,research',
    patient_ids: 'ehr=shared-1',
    found: 'ehr',
    absent: 'lab',
    ambiguous: 'research',
    failed: '',
    outcomes: undefined,
    cached: false,
  });
  assert.equal(JSON.parse(String(first?.['outcomes']))[2].status, 'ambiguous');
  assert.equal(second?.['cached'], true);
  assert.doesNotMatch(JSON.stringify(resolves), /bearer|access_token|secret/i);
});

test('refuses a bad query, a system that is not configured, an unknown source, and a gateway without identity', async (t) => {
  const { gw } = await identityGateway(t, ['ehr']);
  await assert.rejects(gw.resolvePatient({ identifier: 'http://other.example/mrn|1' }), { name: 'TypeError', message: /not one of the gateway's identity.systems/ });
  await assert.rejects(gw.resolvePatient({ identifier: `${MRN}` }), { name: 'TypeError', message: /system\|value/ });
  await assert.rejects(gw.resolvePatient({ source: 'ehr', id: '../x' }), { name: 'TypeError', message: /FHIR id/ });
  await assert.rejects(gw.resolvePatient({ source: 'nowhere', id: 'x' }), { code: 'ERR_UNKNOWN_SOURCE' });
  await assert.rejects(gw.resolvePatient({ identifier: `${MRN}|1` }, { sources: ['nowhere'] }), { code: 'ERR_UNKNOWN_SOURCE' });
  // The authorities name lab and research, which this gateway does not have: refused, never widened.
  const partial = gatewayOver(t, {}, {});
  partial.addSource('ehr', 'fhir://127.0.0.1:9/fhir/');
  await assert.rejects(partial.resolvePatient({ identifier: `${MRN}|1` }), { code: 'ERR_UNKNOWN_SOURCE', message: /identity\.authorities\[.*\] names "lab"/ });
  const plain = gatewayOver(t, {}, { identity: undefined });
  assert.throws(() => plain.resolvePatient({ identifier: `${MRN}|1` }), { name: 'TypeError', message: /identity option/ });
});

/** Writes to a sandbox through the gateway's exchange (with its token). */
async function fetchJSON(_base: string, gw: import('../../../src/gateway/index.js').AsyncFHIRGateway, method: 'PUT', path: string, body: unknown): Promise<void> {
  const res = await gw.exchange('research', { method, path, headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify(body) });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status}`);
}
