import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateContext } from '../../src/cds/hooks-context.js';
import { parseJSONObject, validateRequest } from '../../src/cds/validate-request.js';

const HOOK_INSTANCE = 'd1577c69-dfbe-44ad-ba6d-3e05e953b2ea';
const base = (over: Record<string, unknown> = {}) => ({
  hook: 'patient-view',
  hookInstance: HOOK_INSTANCE,
  context: { userId: 'Practitioner/1', patientId: '123' },
  ...over,
});

function rejects(fn: () => unknown, field: string | undefined, message?: RegExp): void {
  assert.throws(fn, (err: any) => {
    assert.equal(err.code, 'ERR_CDS_REQUEST');
    assert.equal(err.status, 400);
    assert.equal(err.field, field);
    if (message) assert.match(err.message, message);
    return true;
  });
}

test('accepts a minimal patient-view request and keeps what was sent', () => {
  const r = validateRequest(base({ prefetch: { patient: { resourceType: 'Patient', id: '123' }, none: null } }), 'patient-view');
  assert.equal(r.hookInstance, HOOK_INSTANCE);
  assert.deepEqual(r.prefetch, { patient: { resourceType: 'Patient', id: '123' }, none: null });
  assert.equal(r.fhirServer, undefined);
  assert.equal(r.fhirAuthorization, undefined);
});

test('answers 400 naming the field for each malformed member', () => {
  rejects(() => validateRequest(base({ hook: 'order-sign' }), 'patient-view'), 'hook', /must be "patient-view"/);
  rejects(() => validateRequest(base({ hook: 3 }), 'patient-view'), 'hook');
  rejects(() => validateRequest(base({ hookInstance: 'not-a-uuid' }), 'patient-view'), 'hookInstance', /UUID/);
  rejects(() => validateRequest(base({ context: [] }), 'patient-view'), 'context');
  rejects(() => validateRequest(base({ fhirServer: 'ftp://x' }), 'patient-view'), 'fhirServer');
  rejects(() => validateRequest(base({ fhirServer: 'nope' }), 'patient-view'), 'fhirServer');
  rejects(() => validateRequest(base({ prefetch: [] }), 'patient-view'), 'prefetch');
  rejects(() => validateRequest(base({ prefetch: { p: 'x' } }), 'patient-view'), 'prefetch.p');
});

test('fhirAuthorization is checked and needs fhirServer', () => {
  const auth = { access_token: 'tok', token_type: 'Bearer', expires_in: 300, scope: 'patient/*.read', subject: 'svc', patient: '123' };
  const ok = validateRequest(base({ fhirServer: 'https://ehr.example/fhir', fhirAuthorization: auth }), 'patient-view');
  assert.deepEqual(ok.fhirAuthorization, auth);
  assert.equal(ok.fhirServer, 'https://ehr.example/fhir');
  rejects(() => validateRequest(base({ fhirAuthorization: auth }), 'patient-view'), 'fhirServer', /required with fhirAuthorization/);
  const server = { fhirServer: 'https://ehr.example/fhir' };
  rejects(() => validateRequest(base({ ...server, fhirAuthorization: { ...auth, token_type: 'MAC' } }), 'patient-view'), 'fhirAuthorization.token_type');
  rejects(() => validateRequest(base({ ...server, fhirAuthorization: { ...auth, expires_in: '300' } }), 'patient-view'), 'fhirAuthorization.expires_in');
  rejects(() => validateRequest(base({ ...server, fhirAuthorization: { ...auth, access_token: '' } }), 'patient-view'), 'fhirAuthorization.access_token');
  rejects(() => validateRequest(base({ ...server, fhirAuthorization: 'x' }), 'patient-view'), 'fhirAuthorization');
});

test('parseJSONObject refuses invalid JSON and non-objects', () => {
  assert.deepEqual(parseJSONObject(Buffer.from('{"a":1}')), { a: 1 });
  rejects(() => parseJSONObject(Buffer.from('{')), undefined, /not valid JSON/);
  rejects(() => parseJSONObject(Buffer.from('[1]')), undefined, /JSON object/);
});

test('validates the context of every known hook', () => {
  const bundle = { resourceType: 'Bundle', type: 'collection' };
  validateContext('patient-view', { userId: 'Patient/1', patientId: 'p', encounterId: 'e' });
  validateContext('order-select', { userId: 'PractitionerRole/1', patientId: 'p', selections: ['MedicationRequest/1'], draftOrders: bundle });
  validateContext('order-sign', { userId: 'Practitioner/1', patientId: 'p', draftOrders: bundle });
  validateContext('encounter-start', { userId: 'Practitioner/1', patientId: 'p', encounterId: 'e' });
  validateContext('encounter-discharge', { userId: 'Practitioner/1', patientId: 'p', encounterId: 'e' });
  validateContext('appointment-book', { userId: 'RelatedPerson/1', patientId: 'p', appointments: bundle });
  validateContext('my-custom-hook', { anything: [1, 2] });

  rejects(() => validateContext('patient-view', { userId: 'Practitioner/1' }), 'context.patientId', /required by the patient-view hook/);
  rejects(() => validateContext('patient-view', { userId: 'Device/1', patientId: 'p' }), 'context.userId');
  rejects(() => validateContext('patient-view', { userId: 'Practitioner/a/b', patientId: 'p' }), 'context.userId');
  rejects(() => validateContext('patient-view', { userId: 'Practitioner/1', patientId: 'bad id!' }), 'context.patientId', /FHIR id/);
  rejects(() => validateContext('encounter-start', { userId: 'Patient/1', patientId: 'p', encounterId: 'e' }), 'context.userId');
  rejects(() => validateContext('encounter-discharge', { userId: 'Practitioner/1', patientId: 'p' }), 'context.encounterId');
  rejects(() => validateContext('order-sign', { userId: 'Practitioner/1', patientId: 'p', draftOrders: { resourceType: 'Patient' } }), 'context.draftOrders', /Bundle/);
  rejects(() => validateContext('order-select', { userId: 'Practitioner/1', patientId: 'p', selections: [], draftOrders: bundle }), 'context.selections');
  rejects(() => validateContext('order-select', { userId: 'Practitioner/1', patientId: 'p', selections: ['x'], draftOrders: bundle }), 'context.selections[0]');
  rejects(() => validateContext('order-select', { userId: 'Practitioner/1', patientId: 'p', selections: 'x', draftOrders: bundle }), 'context.selections');
  rejects(() => validateContext('appointment-book', { userId: 'Practitioner/1', patientId: 'p' }), 'context.appointments');
});

test('ids and references refuse the dot segments "." and "..", which a prefetch URL would resolve away', () => {
  rejects(() => validateContext('patient-view', { userId: 'Practitioner/1', patientId: '..' }), 'context.patientId');
  rejects(() => validateContext('patient-view', { userId: 'Practitioner/1', patientId: '.', }), 'context.patientId');
  rejects(() => validateContext('patient-view', { userId: 'Practitioner/..', patientId: '1' }), 'context.userId');
  rejects(() => validateContext('patient-view', { userId: 'practitioner/1', patientId: '1' }), 'context.userId');
  const draftOrders = { resourceType: 'Bundle', type: 'collection' };
  rejects(() => validateContext('order-select', { userId: 'Practitioner/1', patientId: '1', selections: ['MedicationRequest/.'], draftOrders }), 'context.selections[0]');
  rejects(() => validateContext('order-select', { userId: 'Practitioner/1', patientId: '1', selections: ['MedicationRequest/a/b'], draftOrders }), 'context.selections[0]');
  validateContext('order-select', { userId: 'PractitionerRole/r.1', patientId: 'p-1', selections: ['MedicationRequest/...'], draftOrders });
});
