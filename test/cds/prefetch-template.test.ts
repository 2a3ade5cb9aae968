import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPrefetchTemplates, isReadQuery, renderTemplate } from '../../src/cds/prefetch-template.js';

test('accepts reads and searches with the tokens of the spec', () => {
  checkPrefetchTemplates('patient-view', {
    patient: 'Patient/{{context.patientId}}',
    obs: 'Observation?patient={{context.patientId}}&code=http://loinc.org|4548-4',
    me: 'Practitioner/{{userPractitionerId}}',
    role: 'PractitionerRole/{{ userPractitionerRoleId }}',
    self: 'Patient/{{userPatientId}}',
    rp: 'RelatedPerson/{{userRelatedPersonId}}',
    enc: 'Encounter/{{context.encounterId}}',
    meta: 'Observation',
  });
  checkPrefetchTemplates('my-hook', { any: 'Patient/{{context.whatever}}' });
});

test('refuses bad templates with a TypeError naming prefetch.<key>', () => {
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['patient-view', { p: 'Patient/{{context.nope}}' }, /prefetch\.p: the patient-view hook has no primitive context field "nope"/],
    ['order-sign', { p: 'Bundle/{{context.draftOrders}}' }, /no primitive context field "draftOrders"/],
    ['patient-view', { p: 'Patient/{{patientId}}' }, /prefetch\.p: unknown prefetch token \{\{patientId\}\}/],
    ['patient-view', { p: 'Patient/{{context.patient.id}}' }, /unknown prefetch token/],
    ['patient-view', { p: 'https://evil.example/Patient/{{context.patientId}}' }, /relative FHIR read or search/],
    ['patient-view', { p: '/Patient/{{context.patientId}}' }, /relative/],
    ['patient-view', { p: 'Patient/../../admin' }, /relative/],
    ['patient-view', { p: 'Patient/{{context.patientId}' }, /relative/],
    ['patient-view', { p: 'Patient/a b' }, /relative/],
    ['patient-view', { p: 42 }, /prefetch\.p must be a string/],
  ];
  for (const [hook, prefetch, message] of bad) assert.throws(() => checkPrefetchTemplates(hook, prefetch), (err: Error) => err instanceof TypeError && message.test(err.message));
});

test('renders tokens URL-encoded, and null when a token has no value', () => {
  const context = { userId: 'Practitioner/abc', patientId: '123', odd: 'a&b=c', flag: true };
  assert.equal(renderTemplate('Patient/{{context.patientId}}', context), 'Patient/123');
  assert.equal(renderTemplate('Observation?patient={{context.patientId}}&x={{context.odd}}', context), 'Observation?patient=123&x=a%26b%3Dc');
  assert.equal(renderTemplate('Practitioner/{{userPractitionerId}}', context), 'Practitioner/abc');
  assert.equal(renderTemplate('X?f={{context.flag}}', context), 'X?f=true');
  assert.equal(renderTemplate('Patient/{{userPatientId}}', context), null);
  assert.equal(renderTemplate('Encounter/{{context.encounterId}}', context), null);
  assert.equal(renderTemplate('Patient/{{userPatientId}}', { userId: 5 }), null);
  assert.equal(isReadQuery('Patient/1'), true);
  assert.equal(isReadQuery('Patient?_id=1'), false);
});

test('a "." or ".." value in the path is refused (a dot segment would leave the resource type); in the query it is plain text', () => {
  for (const [template, context, field] of [
    ['Patient/{{context.patientId}}', { patientId: '..' }, 'context.patientId'],
    ['Patient/{{context.patientId}}/_history', { patientId: '.' }, 'context.patientId'],
    ['Practitioner/{{userPractitionerId}}', { userId: 'Practitioner/..' }, 'context.userId'],
  ] as const) {
    assert.throws(() => renderTemplate(template, context), (err: any) => err.code === 'ERR_CDS_REQUEST' && err.status === 400 && err.field === field);
  }
  assert.equal(renderTemplate('Observation?code={{context.code}}', { code: '..' }), 'Observation?code=..');
  assert.equal(renderTemplate('Patient/{{context.patientId}}', { patientId: '...' }), 'Patient/...');
});
