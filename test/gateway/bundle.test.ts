import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bundle, Observation, Patient } from '../../src/fhir/index.js';
import { createEntry, deleteEntry, readEntry, requestBundle, searchEntry, updateEntry } from '../../src/gateway/index.js';
import { sandbox } from '../support/sandbox.js';
import { gateway, settle } from '../support/gateway-fixtures.js';
import { withoutTraceId } from '../support/trace-ids.js';

const MRN = 'http://hospital.example/mrn';
const withMrn = (value: string): Patient => ({ resourceType: 'Patient', identifier: [{ system: MRN, value }], name: [{ family: `Mrn${value}` }] });

test('conditional create: created once (201), then the existing one is returned (200); several matches are 412', async (t) => {
  const s = await sandbox(t);
  const { gw, events } = gateway(t);
  gw.addSource('s', s.connectionString());
  const first = await gw.create(withMrn('77'), 's', { ifNoneExist: `identifier=${MRN}|77` });
  const again = await gw.create({ ...withMrn('77'), active: false }, 's', { ifNoneExist: { identifier: `${MRN}|77` } });
  assert.equal(again.id, first.id);
  assert.equal(again.active, undefined, 'the existing resource is returned as stored, not the one sent');
  assert.equal((await gw.search('Patient', { identifier: `${MRN}|77` })).total, 1);
  await gw.create(withMrn('88'));
  await gw.create(withMrn('88'));
  await assert.rejects(gw.create(withMrn('88'), 's', { ifNoneExist: `identifier=${MRN}|88` }), { code: 'ERR_FHIR_HTTP', status: 412 });
  await settle();
  const creates = events.filter(([name]) => name === 'fhir.patient.create').map(([, p]) => p.created);
  assert.deepEqual(creates, [true, false, undefined, undefined]);
});

test('ifNoneExist is checked before anything is sent', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { events: false });
  gw.addSource('s', s.connectionString());
  for (const bad of ['?identifier=x', 'identifier=x#frag', 'identifier', 'a=1&&b=2', '', 'name=van der Berg', 'name=Müller', 'a=1\r\nx-evil: 1']) {
    assert.throws(() => gw.create(withMrn('1'), 's', { ifNoneExist: bad }), { name: 'RangeError', message: /ifNoneExist/ }, bad);
  }
  assert.throws(() => gw.create(withMrn('1'), 's', { ifNoneExist: 5 as unknown as string }), { name: 'TypeError', message: /ifNoneExist/ });
  assert.throws(() => gw.create(withMrn('1'), 's', { ifNoneExist: {} }), { name: 'RangeError' });
  assert.equal(s.stats.requests.byKind.create ?? 0, 0);
});

test('a transaction creates linked resources: urn:uuid references become the new ids', async (t) => {
  const s = await sandbox(t);
  const { gw, events } = gateway(t);
  gw.addSource('s', s.connectionString());
  const p = createEntry(withMrn('501'));
  const o = createEntry<Observation>({ resourceType: 'Observation', status: 'final', code: { text: 'pulse' }, subject: { reference: p.fullUrl } });
  const answer = await gw.transaction(requestBundle('transaction', [o, p]), 's');
  assert.equal(answer.type, 'transaction-response');
  assert.deepEqual(answer.entry?.map((e) => e.response?.status), ['201 Created', '201 Created']);
  const [obsLoc, patLoc] = answer.entry!.map((e) => e.response!.location!);
  assert.match(patLoc!, /^Patient\/[^/]+\/_history\/1$/);
  assert.equal(answer.entry?.[1]?.response?.etag, 'W/"1"');
  const patientId = patLoc!.split('/')[1]!;
  const obs = await gw.read('Observation', obsLoc!.split('/')[1]!);
  assert.equal(obs.subject?.reference, `Patient/${patientId}`);
  await settle();
  const tx = events.find(([name]) => name === 'fhir.bundle.transaction');
  assert.deepEqual(withoutTraceId(tx?.[1]), { resource_type: 'Bundle', resource_id: undefined, source: 's', operation: 'transaction', entry_count: 2, error_count: 0 });
});

test('a failing transaction stores nothing and is ERR_FHIR_HTTP with the failing entry\'s status and OperationOutcome', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { events: false });
  gw.addSource('s', s.connectionString());
  const before = (await gw.search('Patient', { _count: 0 })).total;
  const current = await gw.read('Patient', 'a-patient-1');
  const bundle = requestBundle('transaction', [
    createEntry(withMrn('601')),
    updateEntry({ ...current, active: false }, { ifMatch: 'W/"999"' }),
  ]);
  await assert.rejects(gw.transaction(bundle, 's'), (err: Error & { code?: string; status?: number; operationOutcome?: { issue: { diagnostics?: string }[] } }) => {
    assert.equal(err.code, 'ERR_FHIR_HTTP');
    assert.equal(err.status, 412);
    assert.match(err.operationOutcome?.issue[0]?.diagnostics ?? '', /entry\[1\].*nothing was stored/);
    return true;
  });
  assert.equal((await gw.search('Patient', { _count: 0 })).total, before);
  assert.equal((await gw.search('Patient', { identifier: `${MRN}|601` })).total, 0);
  assert.equal((await gw.read('Patient', 'a-patient-1')).meta?.versionId, current.meta?.versionId);
});

test('a batch runs each entry on its own and answers every outcome in order', async (t) => {
  const s = await sandbox(t);
  const { gw, events } = gateway(t);
  gw.addSource('s', s.connectionString());
  const answer = await gw.batch({
    resourceType: 'Bundle',
    type: 'batch',
    entry: [readEntry('Patient', 'a-patient-1'), readEntry('Patient', 'no-such'), createEntry(withMrn('701')), searchEntry('Patient', { identifier: `${MRN}|701` }), deleteEntry('Patient', 'a-patient-2')],
  });
  assert.equal(answer.type, 'batch-response');
  assert.deepEqual(answer.entry?.map((e) => e.response?.status), ['200 OK', '404 Not Found', '201 Created', '200 OK', '204 No Content']);
  assert.equal((answer.entry?.[1]?.response?.outcome as { resourceType?: string }).resourceType, 'OperationOutcome');
  assert.equal((answer.entry?.[0]?.resource as Patient).id, 'a-patient-1');
  assert.equal((answer.entry?.[3]?.resource as Bundle).total, 1, 'the create before it was stored');
  await assert.rejects(gw.read('Patient', 'a-patient-2'), { status: 410 });
  await settle();
  assert.deepEqual(withoutTraceId(events.find(([name]) => name === 'fhir.bundle.batch')?.[1]), { resource_type: 'Bundle', resource_id: undefined, source: 's', operation: 'batch', entry_count: 5, error_count: 1 });
});

test('request Bundles are checked before anything is sent', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { events: false });
  gw.addSource('s', s.connectionString());
  const cases: [unknown, RegExp][] = [
    [null, /object/],
    [{ resourceType: 'Patient' }, /must be a Bundle/],
    [{ resourceType: 'Bundle', type: 'batch' }, /not "transaction"/],
    [{ resourceType: 'Bundle', entry: {} }, /entry must be an array/],
    [{ resourceType: 'Bundle', entry: [{}] }, /entry\[0\] has no request/],
    [{ resourceType: 'Bundle', entry: [{ request: { method: 'FETCH', url: 'Patient' } }] }, /request.method/],
    [{ resourceType: 'Bundle', entry: [{ request: { method: 'GET', url: '' } }] }, /request.url/],
    [{ resourceType: 'Bundle', entry: [{ request: { method: 'POST', url: 'Patient' } }] }, /needs a resource/],
  ];
  for (const [bundle, message] of cases) {
    await assert.rejects(gw.transaction(bundle as Bundle, 's'), { code: 'ERR_INVALID_RESOURCE', message }, String(message));
  }
  const empty = await gw.transaction({ resourceType: 'Bundle' } as Bundle, 's');
  assert.equal(empty.type, 'transaction-response');
  assert.equal(s.stats.requests.byKind.bundle, 1);
});

test('entry builders check what they are given', () => {
  assert.match(createEntry(withMrn('1')).fullUrl, /^urn:uuid:[0-9a-f-]{36}$/);
  assert.equal(createEntry(withMrn('1'), { fullUrl: 'urn:uuid:x' }).fullUrl, 'urn:uuid:x');
  assert.deepEqual(createEntry(withMrn('1'), { ifNoneExist: { identifier: 'a|b' } }).request, { method: 'POST', url: 'Patient', ifNoneExist: 'identifier=a%7Cb' });
  assert.deepEqual(updateEntry({ resourceType: 'Patient', id: 'p1' }, { ifMatch: 'W/"2"' }).request, { method: 'PUT', url: 'Patient/p1', ifMatch: 'W/"2"' });
  assert.deepEqual(searchEntry('Patient').request, { method: 'GET', url: 'Patient' });
  assert.throws(() => updateEntry(withMrn('1')), { code: 'ERR_INVALID_RESOURCE' });
  assert.throws(() => deleteEntry('Patient', '../x'), { code: 'ERR_INVALID_ID' });
  assert.throws(() => readEntry('Nope' as 'Patient', '1'), { code: 'ERR_INVALID_RESOURCE_TYPE' });
  assert.throws(() => createEntry(withMrn('1'), { fullUrl: 3 as unknown as string }), TypeError);
  assert.throws(() => updateEntry({ resourceType: 'Patient', id: 'p1' }, { ifMatch: 3 as unknown as string }), TypeError);
  assert.throws(() => requestBundle('collection' as 'batch', []), TypeError);
  assert.throws(() => requestBundle('batch', {} as []), TypeError);
});
