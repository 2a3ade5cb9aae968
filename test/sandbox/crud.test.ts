import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fhirFor, jsonBody } from './helpers.js';

test('create answers 201 with Location, ETag and the stored resource with a server id', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  const res = await fhir.json('/Patient', jsonBody('POST', { resourceType: 'Patient', id: 'mine', name: [{ family: 'Doe' }] }));
  assert.equal(res.status, 201);
  assert.match(res.headers.get('content-type') ?? '', /^application\/fhir\+json/);
  const id = res.body.id as string;
  assert.notEqual(id, 'mine', 'a client id in a POST body is replaced');
  assert.match(id, /^[A-Za-z0-9\-.]{1,64}$/);
  assert.equal(res.headers.get('location'), `${sandbox.fhirBase}/Patient/${id}/_history/1`);
  assert.equal(res.headers.get('etag'), 'W/"1"');
  assert.equal(res.body.meta.versionId, '1');
  assert.ok(!Number.isNaN(Date.parse(res.body.meta.lastUpdated)));
  assert.deepEqual(res.body.name, [{ family: 'Doe' }]);
  const read = await fhir.json(`/Patient/${id}`);
  assert.equal(read.status, 200);
  assert.deepEqual(read.body, res.body);
});

test('Prefer return=minimal gives an empty body, return=OperationOutcome an outcome', async (t) => {
  const { fhir } = await fhirFor(t);
  const minimal = await fhir('/Patient', jsonBody('POST', { resourceType: 'Patient' }, { prefer: 'return=minimal' }));
  assert.equal(minimal.status, 201);
  assert.equal(await minimal.text(), '');
  assert.ok(minimal.headers.get('location'));
  const outcome = await fhir.json('/Patient', jsonBody('POST', { resourceType: 'Patient' }, { prefer: 'return=OperationOutcome' }));
  assert.equal(outcome.status, 201);
  assert.equal(outcome.body.resourceType, 'OperationOutcome');
});

test('read answers 200 with ETag and Last-Modified, 404 for an unknown id', async (t) => {
  const { fhir } = await fhirFor(t);
  const res = await fhir.json('/Patient/a-patient-1');
  assert.equal(res.status, 200);
  assert.equal(res.body.name[0].family, 'Chalmers');
  assert.equal(res.headers.get('etag'), 'W/"1"');
  assert.ok(res.headers.get('last-modified'));
  const missing = await fhir.json('/Patient/nobody');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.resourceType, 'OperationOutcome');
  assert.equal(missing.body.issue[0].code, 'not-found');
});

test('update answers 200 with the next version, 201 when it creates, and keeps history for vread', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  const { body: p } = await fhir.json('/Patient/a-patient-2');
  const res = await fhir.json('/Patient/a-patient-2', jsonBody('PUT', { ...p, active: false }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('etag'), 'W/"2"');
  assert.equal(res.body.meta.versionId, '2');
  assert.equal(res.body.active, false);
  const created = await fhir.json('/Patient/brand-new', jsonBody('PUT', { resourceType: 'Patient', id: 'brand-new' }));
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('location'), `${sandbox.fhirBase}/Patient/brand-new/_history/1`);
  const v1 = await fhir.json('/Patient/a-patient-2/_history/1');
  assert.equal(v1.status, 200);
  assert.equal(v1.body.active, true);
  assert.equal(v1.headers.get('etag'), 'W/"1"');
  assert.equal((await fhir('/Patient/a-patient-2/_history/9')).status, 404);
  assert.equal((await fhir('/Patient/a-patient-2/_history/x')).status, 404);
});

test('update with If-Match succeeds on the current version and answers 412 otherwise', async (t) => {
  const { fhir } = await fhirFor(t);
  const { body: p } = await fhir.json('/Patient/a-patient-3');
  const ok = await fhir('/Patient/a-patient-3', jsonBody('PUT', p, { 'if-match': 'W/"1"' }));
  assert.equal(ok.status, 200);
  const stale = await fhir.json('/Patient/a-patient-3', jsonBody('PUT', p, { 'if-match': 'W/"1"' }));
  assert.equal(stale.status, 412);
  assert.equal(stale.body.issue[0].code, 'conflict');
  const absent = await fhir('/Patient/none-yet', jsonBody('PUT', { resourceType: 'Patient', id: 'none-yet' }, { 'if-match': 'W/"1"' }));
  assert.equal(absent.status, 412);
  const bad = await fhir('/Patient/a-patient-3', jsonBody('PUT', p, { 'if-match': 'yesterday' }));
  assert.equal(bad.status, 400);
});

test('delete answers 204, then reads answer 410, deleting again 204, unknown ids 404', async (t) => {
  const { fhir } = await fhirFor(t);
  const del = await fhir('/Patient/a-patient-4', { method: 'DELETE' });
  assert.equal(del.status, 204);
  assert.equal(await del.text(), '');
  const gone = await fhir.json('/Patient/a-patient-4');
  assert.equal(gone.status, 410);
  assert.equal(gone.body.issue[0].code, 'deleted');
  assert.equal((await fhir('/Patient/a-patient-4', { method: 'DELETE' })).status, 204);
  assert.equal((await fhir('/Patient/never', { method: 'DELETE' })).status, 404);
  assert.equal((await fhir('/Patient/a-patient-4/_history/2')).status, 410);
  assert.equal((await fhir('/Patient/a-patient-4/_history/1')).status, 200);
  const search = await fhir.json('/Patient?_id=a-patient-4');
  assert.equal(search.body.total, 0);
  const revived = await fhir('/Patient/a-patient-4', jsonBody('PUT', { resourceType: 'Patient', id: 'a-patient-4' }));
  assert.equal(revived.status, 201);
  assert.equal(revived.headers.get('etag'), 'W/"3"');
});

test('conditional create with If-None-Exist returns the match instead of a copy', async (t) => {
  const { fhir } = await fhirFor(t);
  const existing = await fhir.json('/Patient', jsonBody('POST', { resourceType: 'Patient' }, { 'if-none-exist': 'identifier=urn:oid:2.16.840.1.113883.19.5|MRN-A-0001' }));
  assert.equal(existing.status, 200);
  assert.equal(existing.body.id, 'a-patient-1');
  const fresh = await fhir('/Patient', jsonBody('POST', { resourceType: 'Patient' }, { 'if-none-exist': 'identifier=nobody' }));
  assert.equal(fresh.status, 201);
  const many = await fhir('/Patient', jsonBody('POST', { resourceType: 'Patient' }, { 'if-none-exist': 'address-city=Boston' }));
  assert.equal(many.status, 412);
});

test('metadata is a public CapabilityStatement naming the token endpoint', async (t) => {
  const { sandbox, fhir } = await fhirFor(t, {});
  const res = await fhir.json('/metadata');
  assert.equal(res.status, 200);
  assert.equal(res.body.resourceType, 'CapabilityStatement');
  assert.equal(res.body.fhirVersion, '4.0.1');
  const patient = res.body.rest[0].resource.find((r: { type: string }) => r.type === 'Patient');
  assert.ok(patient.searchParam.some((p: { name: string }) => p.name === 'birthdate'));
  const uris = res.body.rest[0].security.extension[0].extension;
  assert.equal(uris[0].valueUri, sandbox.tokenUrl);
  const smart = await fhir.json('/.well-known/smart-configuration');
  assert.equal(smart.status, 200);
  assert.equal(smart.body.token_endpoint, sandbox.tokenUrl);
  assert.deepEqual(smart.body.token_endpoint_auth_signing_alg_values_supported, ['RS384', 'ES384']);
  assert.equal((await fhir('/metadata', { method: 'POST' })).status, 405);
  assert.equal((await fhir('/.well-known/smart-configuration', { method: 'POST' })).status, 405);
});

test('POST [type]/_search takes form parameters', async (t) => {
  const { fhir } = await fhirFor(t);
  const res = await fhir.json('/Patient/_search', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'gender=female',
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.total, 2);
  assert.equal((await fhir('/Patient/_search')).status, 405);
});

test('HEAD of a read answers the headers without a body', async (t) => {
  const { fhir } = await fhirFor(t);
  const res = await fhir('/Patient/a-patient-1', { method: 'HEAD' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('etag'), 'W/"1"');
  assert.equal(await res.text(), '');
});

test('conditional create with an If-None-Exist that selects nothing in particular is 400, and nothing is created', async (t) => {
  const { fhir } = await fhirFor(t);
  const before = (await fhir.json('/Patient?_count=0')).body.total;
  for (const condition of ['', '?', 'Patient?', 'family=', '_count=1', '_sort=family&given=']) {
    const res = await fhir.json('/Patient', jsonBody('POST', { resourceType: 'Patient' }, { 'if-none-exist': condition }));
    assert.equal(res.status, 400, JSON.stringify(condition));
    assert.equal(res.body.resourceType, 'OperationOutcome');
  }
  assert.equal((await fhir.json('/Patient?_count=0')).body.total, before);
});
