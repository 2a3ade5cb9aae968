import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fhirFor, jsonBody } from './helpers.js';

const bundle = (type: string, entry: unknown[]) => ({ resourceType: 'Bundle', type, entry });

test('a transaction runs DELETE, POST, PUT, GET in that order and answers in request order', async (t) => {
  const { fhir } = await fhirFor(t);
  const current = (await fhir.json('/Patient/a-patient-1')).body;
  const res = await fhir.json('', jsonBody('POST', bundle('transaction', [
    { request: { method: 'GET', url: 'Patient?identifier=urn:x|1' } },
    { request: { method: 'PUT', url: `Patient/a-patient-1` }, resource: { ...current, active: false } },
    { fullUrl: 'urn:uuid:0b7c5c3e-1d3e-4c4e-9b7e-2b8a3f0d7a11', request: { method: 'POST', url: 'Patient' }, resource: { resourceType: 'Patient', identifier: [{ system: 'urn:x', value: '1' }] } },
    { request: { method: 'DELETE', url: 'Patient/a-patient-2' } },
  ])));
  assert.equal(res.status, 200);
  assert.equal(res.body.type, 'transaction-response');
  assert.deepEqual(res.body.entry.map((e: { response: { status: string } }) => e.response.status), ['200 OK', '200 OK', '201 Created', '204 No Content']);
  assert.equal(res.body.entry[0].resource.total, 1, 'the GET ran after the POST');
  assert.equal(res.body.entry[1].resource.active, false);
  assert.equal((await fhir('/Patient/a-patient-2')).status, 410);
});

test('urn:uuid references are resolved anywhere in the transaction, also to a conditional create\'s match', async (t) => {
  const { fhir } = await fhirFor(t);
  const p = 'urn:uuid:11111111-1111-4111-8111-111111111111';
  const q = 'urn:uuid:22222222-2222-4222-8222-222222222222';
  const res = await fhir.json('', jsonBody('POST', bundle('transaction', [
    { fullUrl: 'urn:uuid:33333333-3333-4333-8333-333333333333', request: { method: 'POST', url: 'Encounter' }, resource: { resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, subject: { reference: p }, participant: [{ individual: { reference: q } }] } },
    { fullUrl: p, request: { method: 'POST', url: 'Patient' }, resource: { resourceType: 'Patient' } },
    { fullUrl: q, request: { method: 'POST', url: 'Patient', ifNoneExist: 'identifier=urn:oid:2.16.840.1.113883.19.5|MRN-A-0001' }, resource: { resourceType: 'Patient' } },
  ])));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [enc, pat, existing] = res.body.entry;
  assert.equal(existing.response.status, '200 OK');
  assert.equal(enc.resource.subject.reference, `Patient/${pat.resource.id}`);
  assert.equal(enc.resource.participant[0].individual.reference, `Patient/${existing.resource.id}`);
  assert.equal(pat.response.location, `Patient/${pat.resource.id}/_history/1`);
});

test('a failing transaction stores nothing and answers the failing entry\'s status and OperationOutcome', async (t) => {
  const { fhir } = await fhirFor(t);
  const before = (await fhir.json('/Patient?_count=0')).body.total;
  for (const [failing, status] of [
    [{ request: { method: 'GET', url: 'Patient/nobody' } }, 404],
    [{ request: { method: 'PUT', url: 'Patient/a-patient-1', ifMatch: 'W/"77"' }, resource: { resourceType: 'Patient', id: 'a-patient-1' } }, 412],
    [{ request: { method: 'POST', url: 'Patient' }, resource: { resourceType: 'Observation' } }, 400],
    [{ request: { method: 'GET', url: 'Nope/1' } }, 400],
    [{ request: { method: 'PATCH', url: 'Patient/a-patient-1' } }, 405],
  ] as const) {
    const res = await fhir.json('', jsonBody('POST', bundle('transaction', [
      { request: { method: 'POST', url: 'Patient' }, resource: { resourceType: 'Patient', name: [{ family: 'Rolledback' }] } },
      { request: { method: 'DELETE', url: 'Patient/a-patient-3' } },
      failing,
    ])));
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.resourceType, 'OperationOutcome');
    assert.match(res.body.issue[0].diagnostics, /entry\[2\]/);
  }
  assert.equal((await fhir.json('/Patient?_count=0')).body.total, before);
  assert.equal((await fhir.json('/Patient?family=Rolledback')).body.total, 0);
  assert.equal((await fhir('/Patient/a-patient-3')).status, 200);
});

test('a batch answers each entry on its own; only transaction and batch Bundles may be posted to the base', async (t) => {
  const { fhir } = await fhirFor(t);
  const res = await fhir.json('', jsonBody('POST', bundle('batch', [
    { request: { method: 'POST', url: 'Patient' }, resource: { resourceType: 'Patient', name: [{ family: 'Kept' }] } },
    { request: { method: 'DELETE', url: 'Patient/never' } },
    { request: { method: 'PUT', url: 'Patient' }, resource: { resourceType: 'Patient' } },
    { request: { method: 'GET', url: 'Patient?family=Kept' } },
    'not an entry',
  ])));
  assert.equal(res.status, 200);
  assert.equal(res.body.type, 'batch-response');
  assert.deepEqual(res.body.entry.map((e: { response: { status: string } }) => e.response.status), ['201 Created', '404 Not Found', '400 Bad Request', '200 OK', '400 Bad Request']);
  assert.equal(res.body.entry[1].response.outcome.issue[0].code, 'not-found');
  assert.equal(res.body.entry[3].resource.total, 1);
  assert.equal((await fhir.json('', jsonBody('POST', bundle('collection', [])))).status, 400);
  assert.equal((await fhir.json('', jsonBody('POST', { resourceType: 'Bundle', type: 'batch', entry: {} }))).status, 400);
  assert.equal((await fhir.json('', jsonBody('POST', { resourceType: 'Bundle', type: 'batch', entry: [{ fullUrl: 3, request: { method: 'GET', url: 'Patient' } }] }))).body.entry[0].response.status, '400 Bad Request');
  assert.deepEqual((await fhir.json('', jsonBody('POST', { resourceType: 'Bundle', type: 'batch' }))).body, { resourceType: 'Bundle', type: 'batch-response' });
  assert.equal((await fhir('', { method: 'GET' })).status, 404);
});

test('posting a Bundle to the base needs a token unless the sandbox is open; metadata says so', async (t) => {
  const { fhir } = await fhirFor(t, {});
  assert.deepEqual((await fhir.json('/metadata')).body.rest[0].interaction, [{ code: 'transaction' }, { code: 'batch' }]);
  assert.equal((await fhir('', { ...jsonBody('POST', bundle('batch', [])), headers: { 'content-type': 'application/fhir+json', authorization: 'Bearer nope' } })).status, 401);
  assert.equal((await fhir('', jsonBody('POST', bundle('batch', [])))).status, 200);
});
