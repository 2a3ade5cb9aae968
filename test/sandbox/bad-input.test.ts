import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { test } from 'node:test';
import { FORM, fhirFor, jsonBody } from './helpers.js';

async function expectOutcome(res: Promise<{ status: number; body: any }>, status: number, code?: string): Promise<void> {
  const { status: got, body } = await res;
  assert.equal(got, status, JSON.stringify(body));
  assert.equal(body.resourceType, 'OperationOutcome');
  assert.equal(body.issue[0].severity, 'error');
  if (code !== undefined) assert.equal(body.issue[0].code, code);
  assert.ok(!JSON.stringify(body).includes('    at '), 'no stack trace');
}

test('malformed JSON, non-resources and a resource type that does not fit the URL answer 400', async (t) => {
  const { fhir } = await fhirFor(t);
  const raw = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body });
  await expectOutcome(fhir.json('/Patient', raw('{"resourceType": "Patient",')), 400, 'structure');
  await expectOutcome(fhir.json('/Patient', raw('[]')), 400, 'structure');
  await expectOutcome(fhir.json('/Patient', raw('null')), 400, 'structure');
  await expectOutcome(fhir.json('/Patient', raw('{"name": []}')), 400, 'structure');
  await expectOutcome(fhir.json('/Patient', raw('{"resourceType": "Pateint"}')), 400, 'structure');
  await expectOutcome(fhir.json('/Patient', jsonBody('POST', { resourceType: 'Observation' })), 400, 'invalid');
  await expectOutcome(fhir.json('/Patient/a-patient-1', jsonBody('PUT', { resourceType: 'Observation', id: 'a-patient-1' })), 400);
});

test('PUT needs the body id to equal the URL id', async (t) => {
  const { fhir } = await fhirFor(t);
  await expectOutcome(fhir.json('/Patient/a-patient-1', jsonBody('PUT', { resourceType: 'Patient', id: 'a-patient-2' })), 400);
  await expectOutcome(fhir.json('/Patient/a-patient-1', jsonBody('PUT', { resourceType: 'Patient' })), 400);
  assert.equal((await fhir.json('/Patient/a-patient-2')).body.meta.versionId, '1', 'nothing was written');
});

test('bad ids, unknown types, unknown paths and unsupported methods answer 400/404/405', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  await expectOutcome(fhir.json('/Patient/bad_id!'), 400);
  await expectOutcome(fhir.json(`/Patient/${'x'.repeat(65)}`), 400);
  await expectOutcome(fhir.json('/Patient/bad_id!', { method: 'DELETE' }), 400);
  await expectOutcome(fhir.json('/Patient/bad_id!/_history/1'), 400);
  await expectOutcome(fhir.json('/Unicorn/1'), 404, 'not-supported');
  await expectOutcome(fhir.json('/Unicorn'), 404, 'not-supported');
  await expectOutcome(fhir.json(''), 404);
  await expectOutcome(fhir.json('/Patient/a-patient-1/_history'), 404);
  await expectOutcome(fhir.json('/Patient/a-patient-1/_versions/1'), 404);
  await expectOutcome(fhir.json('/Patient/a-patient-1/_history/1/extra'), 404);
  const patch = await fhir.json('/Patient/a-patient-1', { method: 'PATCH', body: '{}' });
  await expectOutcome(Promise.resolve(patch), 405);
  assert.equal(patch.headers.get('allow'), 'GET, HEAD, PUT, DELETE');
  await expectOutcome(fhir.json('/Patient', { method: 'DELETE' }), 405);
  await expectOutcome(fhir.json('/Patient/a-patient-1/_history/1', { method: 'DELETE' }), 405);
  await expectOutcome(fhir.json(new URL('/elsewhere', sandbox.fhirBase).href), 404);
});

test('a body of another media type answers 415', async (t) => {
  const { fhir } = await fhirFor(t);
  await expectOutcome(fhir.json('/Patient', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"resourceType":"Patient"}' }), 415, 'not-supported');
});

test('bodies over bodyLimit answer 413 on FHIR and token endpoints', async (t) => {
  const { sandbox, fhir } = await fhirFor(t, { open: true, bodyLimit: 200 });
  const big = { resourceType: 'Patient', name: [{ family: 'x'.repeat(500) }] };
  await expectOutcome(fhir.json('/Patient', jsonBody('POST', big)), 413);
  const token = await fetch(sandbox.tokenUrl, { method: 'POST', headers: FORM, body: `grant_type=client_credentials&pad=${'x'.repeat(500)}` });
  assert.equal(token.status, 413);
  assert.equal(((await token.json()) as { error: string }).error, 'invalid_request');
  assert.equal((await fhir('/Patient', jsonBody('POST', { resourceType: 'Patient' }))).status, 201);
});

test('malformed percent-encoding in the path or the query answers 400', async (t) => {
  const { fhir } = await fhirFor(t);
  await expectOutcome(fhir.json('/Patient/%E0%A4%A'), 400);
  await expectOutcome(fhir.json('/Patient/%zz'), 400);
  await expectOutcome(fhir.json('/Patient?family=%zz'), 400);
  await expectOutcome(fhir.json('/Patient?family=%FF'), 400);
});

test('garbage on the wire and clients that vanish mid-body never bring the server down', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  const { port, hostname } = new URL(sandbox.fhirBase);
  const garbage = connect(Number(port), hostname);
  garbage.end('NONSENSE \x00\x01\r\n\r\n');
  let reply = '';
  garbage.on('data', (d: Buffer) => { reply += d.toString(); });
  await once(garbage, 'close');
  assert.match(reply, /^HTTP\/1\.1 400/);
  const partial = request(`${sandbox.fhirBase}/Patient`, { method: 'POST', headers: { 'content-type': 'application/fhir+json', 'content-length': '1000' } });
  partial.on('error', () => {});
  partial.write('{"resourceType":');
  await once(partial, 'socket');
  partial.destroy();
  assert.equal((await fhir('/Patient/a-patient-1')).status, 200);
});
