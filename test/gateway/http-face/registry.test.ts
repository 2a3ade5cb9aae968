import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HandlerRegistry, type AggregateHandler, type TransformHandler } from '../../../src/gateway/http-face/registry.js';
import type { Bundle, Patient } from '../../../src/fhir/index.js';

const patient = (id: string): Patient => ({ resourceType: 'Patient', id });
const emptyBundle = (): Bundle => ({ resourceType: 'Bundle', type: 'searchset' });

test('registers a transform handler and returns it unchanged', () => {
  const registry = new HandlerRegistry();
  const handler: TransformHandler<'Patient'> = (id) => patient(id);
  assert.equal(registry.transform('Patient', handler), handler);
  assert.equal(registry.transformHandler('Patient'), handler);
  assert.equal(registry.transformHandler('Observation'), undefined);
  assert.deepEqual(registry.transformTypes(), ['Patient']);
  assert.deepEqual(registry.aggregateTypes(), []);
});

test('the wrapper form registers the handler it is given and returns it', async () => {
  const registry = new HandlerRegistry();
  const wrap = registry.aggregate('Observation');
  const handler: AggregateHandler<'Observation'> = async () => emptyBundle();
  assert.equal(wrap(handler), handler);
  assert.equal(registry.aggregateHandler('Observation'), handler);
  const t = registry.transform('Patient')(async (id: string) => patient(id));
  assert.equal((await t('7')).id, '7');
  assert.deepEqual(registry.transformTypes(), ['Patient']);
  assert.deepEqual(registry.aggregateTypes(), ['Observation']);
});

test('a second handler for the same type replaces the first and keeps its place', () => {
  const registry = new HandlerRegistry();
  const first: TransformHandler<'Patient'> = (id) => patient(id);
  const second: TransformHandler<'Patient'> = (id) => patient(`${id}-2`);
  registry.transform('Patient', first);
  registry.transform('Observation', (id) => ({ resourceType: 'Observation', id, status: 'final', code: {} }));
  registry.transform('Patient', second);
  assert.equal(registry.transformHandler('Patient'), second);
  assert.deepEqual(registry.transformTypes(), ['Patient', 'Observation']);
});

test('transform and aggregate handlers of one type are separate', () => {
  const registry = new HandlerRegistry();
  registry.aggregate('Patient', emptyBundle);
  assert.equal(registry.transformHandler('Patient'), undefined);
  assert.equal(registry.aggregateHandler('Patient'), emptyBundle);
});

test('an unknown resource type name is ERR_INVALID_RESOURCE_TYPE, in both forms, and nothing is stored', () => {
  const registry = new HandlerRegistry();
  for (const bad of ['patient', 'Resource', 'HumanName', '']) {
    assert.throws(() => registry.transform(bad as 'Patient', (id) => patient(id)), { code: 'ERR_INVALID_RESOURCE_TYPE' });
    assert.throws(() => registry.aggregate(bad as 'Patient', emptyBundle), { code: 'ERR_INVALID_RESOURCE_TYPE' });
    assert.throws(() => registry.transform(bad as 'Patient'), { code: 'ERR_INVALID_RESOURCE_TYPE' });
  }
  assert.throws(() => registry.transform('Patent' as 'Patient', (id) => patient(id)), /"Patent" is not a FHIR resource type/);
  assert.deepEqual(registry.transformTypes(), []);
  assert.deepEqual(registry.aggregateTypes(), []);
});

test('a type that is not a string and a handler that is not a function are TypeErrors', () => {
  const registry = new HandlerRegistry();
  assert.throws(() => registry.transform(42 as unknown as 'Patient', (id) => patient(id)), TypeError);
  assert.throws(() => registry.transform('Patient', 'nope' as unknown as TransformHandler<'Patient'>), {
    name: 'TypeError',
    message: /transform handler for Patient must be a function/,
  });
  assert.throws(() => registry.transform('Patient', undefined as unknown as TransformHandler<'Patient'>), TypeError);
  assert.throws(() => registry.aggregate('Observation')(null as unknown as AggregateHandler), {
    name: 'TypeError',
    message: /aggregate handler for Observation/,
  });
  assert.deepEqual(registry.transformTypes(), []);
  assert.deepEqual(registry.aggregateTypes(), []);
});
