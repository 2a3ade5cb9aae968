import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCE_TYPES, isResourceType } from '../../src/fhir/index.js';

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
