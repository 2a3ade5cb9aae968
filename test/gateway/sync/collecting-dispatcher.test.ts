import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CollectingDispatcher } from '../../../src/gateway/sync/collecting-dispatcher.js';

test('collects copies of emitted events until take() hands them over', async () => {
  const events = new CollectingDispatcher();
  const payload = { resource_id: '1', source: 'a' };
  events.emit('fhir.patient.read', payload);
  payload.resource_id = 'changed';
  events.emit('fhir.patient.search', { result_count: 2 });
  const unregister = events.register();
  unregister();
  await events.drain();
  assert.deepEqual(events.take(), [
    ['fhir.patient.read', { resource_id: '1', source: 'a' }],
    ['fhir.patient.search', { result_count: 2 }],
  ]);
  assert.deepEqual(events.take(), []);
});
