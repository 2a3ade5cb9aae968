// Type-level checks: `tsc --noEmit` rejects this file if the generated types are wrong. Each `Equal`
// must be `true` and each `@ts-expect-error` line must really be an error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  RESOURCE_TYPES,
  searchsetBundle,
  type Bundle,
  type Observation,
  type Patient,
  type PatientContact,
  type Resource,
  type ResourceOf,
  type ResourceType,
} from '../../src/fhir/index.js';

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

const patientOfPatient: Equal<ResourceOf<'Patient'>, Patient> = true;
const unionOfNames: Equal<ResourceOf<'Patient' | 'Observation'>, Patient | Observation> = true;
const namesMatchList: Equal<ResourceType, (typeof RESOURCE_TYPES)[number]> = true;
const everyResourceNamed: Equal<Resource['resourceType'], ResourceType> = true;
type EntryResource<B> = B extends { entry?: (infer E)[] } ? (E extends { resource?: infer R } ? NonNullable<R> : never) : never;
const typedEntries: Equal<EntryResource<Bundle<Patient>>, Patient> = true;
const defaultEntries: Equal<EntryResource<Bundle>, Resource> = true;
const totalIsNumber: Equal<NonNullable<Bundle['total']>, number> = true;
const contactType: Equal<NonNullable<Patient['contact']>[number], PatientContact> = true;

const patient: Patient = {
  resourceType: 'Patient',
  name: [{ family: 'Doe', given: ['Jane'], _given: [null] }],
  birthDate: '1980-02-29',
  _birthDate: { extension: [{ url: 'http://example.org/x', valueString: 'approximate' }] },
  deceasedBoolean: false,
  multipleBirthInteger: 2,
  contact: [{ name: { text: 'Joe' } }],
};

const observation: Observation = {
  resourceType: 'Observation',
  status: 'final',
  code: { text: 'weight' },
  valueQuantity: { value: 72.5, unit: 'kg' },
};

// @ts-expect-error resourceType is a required literal
const wrongType: Patient = { resourceType: 'Observation' };
// @ts-expect-error resourceType is required
const noType: Patient = { id: 'x' };
// @ts-expect-error Observation.code has min 1
const noCode: Observation = { resourceType: 'Observation', status: 'final' };
// @ts-expect-error a choice type has no plain field
const plainChoice: Observation = { resourceType: 'Observation', status: 'final', code: {}, value: 1 };

function describe(resource: Resource): string {
  if (resource.resourceType === 'Patient') return resource.name?.[0]?.family ?? 'anonymous';
  return resource.resourceType;
}

test('the type-level checks above hold and the typed values behave as plain JSON', () => {
  assert.deepEqual(
    [patientOfPatient, unionOfNames, namesMatchList, everyResourceNamed, typedEntries, defaultEntries, totalIsNumber, contactType],
    Array(8).fill(true),
  );
  assert.deepEqual([wrongType.resourceType, noType.id, noCode.status, plainChoice.status], ['Observation', 'x', 'final', 'final']);
  assert.equal(describe(patient), 'Doe');
  assert.equal(describe(observation), 'Observation');
  const bundle: Bundle<Patient> = searchsetBundle([patient]);
  assert.equal(bundle.entry?.[0]?.resource?.birthDate, '1980-02-29');
  assert.deepEqual(JSON.parse(JSON.stringify(observation)), observation);
});
