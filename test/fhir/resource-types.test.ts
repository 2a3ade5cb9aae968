import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCE_TYPES, isResourceType } from '../../src/fhir/index.js';
import { R4_ONLY_RESOURCE_TYPES, isR4OrR4BResourceType } from '../../src/fhir/is-resource-type.js';

test('RESOURCE_TYPES lists the 141 concrete R4B resource types once each, sorted and frozen', () => {
  assert.equal(RESOURCE_TYPES.length, 141);
  assert.equal(new Set(RESOURCE_TYPES).size, 141);
  assert.deepEqual([...RESOURCE_TYPES], [...RESOURCE_TYPES].sort());
  assert.ok(Object.isFrozen(RESOURCE_TYPES));
  assert.throws(() => (RESOURCE_TYPES as unknown as string[]).push('Nope'), TypeError);
});

test('RESOURCE_TYPES has the resources R4B added and not the R4 ones it removed or the abstract bases', () => {
  for (const added of ['SubscriptionStatus', 'SubscriptionTopic', 'Citation', 'Evidence', 'EvidenceReport', 'NutritionProduct',
    'ClinicalUseDefinition', 'MedicinalProductDefinition', 'RegulatedAuthorization', 'Ingredient']) {
    assert.ok(RESOURCE_TYPES.includes(added as never), added);
  }
  for (const kept of ['Patient', 'Observation', 'Bundle', 'OperationOutcome', 'Parameters', 'Binary', 'List', 'Group']) {
    assert.ok(RESOURCE_TYPES.includes(kept as never), kept);
  }
  for (const absent of ['EffectEvidenceSynthesis', 'RiskEvidenceSynthesis', 'MedicinalProduct', 'SubstanceSpecification',
    'Resource', 'DomainResource', 'BaseResource', 'HumanName', 'Element']) {
    assert.ok(!RESOURCE_TYPES.includes(absent as never), absent);
  }
});

test('isResourceType accepts every listed name and nothing else', () => {
  for (const name of RESOURCE_TYPES) assert.equal(isResourceType(name), true, name);
  for (const name of ['patient', 'PATIENT', ' Patient', 'Patient ', 'Patient/1', '', 'Resource', 'DomainResource', 'HumanName',
    'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
    assert.equal(isResourceType(name), false, JSON.stringify(name));
  }
  for (const value of [undefined, null, 0, {}, ['Patient'], new String('Patient')]) assert.equal(isResourceType(value), false);
});

test('isR4OrR4BResourceType also accepts the R4 names R4B dropped, for names only passed on to an R4 server', () => {
  assert.equal(R4_ONLY_RESOURCE_TYPES.length, 18);
  for (const name of [...RESOURCE_TYPES, ...R4_ONLY_RESOURCE_TYPES]) assert.equal(isR4OrR4BResourceType(name), true, name);
  for (const name of R4_ONLY_RESOURCE_TYPES) assert.equal(isResourceType(name), false, `${name} is not an R4B model`);
  for (const name of ['EffectEvidenceSynthesis', 'MedicinalProduct', 'SubstanceSpecification']) assert.ok(R4_ONLY_RESOURCE_TYPES.includes(name as never), name);
  for (const name of ['effectEvidenceSynthesis', 'Resource', 'DomainResource', '', 'toString', '__proto__']) {
    assert.equal(isR4OrR4BResourceType(name), false, JSON.stringify(name));
  }
  assert.equal(isR4OrR4BResourceType(undefined), false);
});
