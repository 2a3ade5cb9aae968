import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CloudEventsDispatcher } from '../../src/events/index.js';
import { startEventSink } from '../support/event-sink.js';
import { startReadingApp } from '../support/event-reads.js';

test('after 10,000 reads through createServiceAPI({ dispatcher }) every fhir.patient.read reaches the HTTP sink exactly once', async (t) => {
  const sink = await startEventSink(t);
  const dispatcher = new CloudEventsDispatcher({ url: sink.url, source: 'urn:fhirgate:test', mode: 'batch', maxQueue: 20_000 });
  t.after(() => dispatcher.close());
  const app = await startReadingApp(t, dispatcher);
  await app.read(10_000);
  while (dispatcher.status().queued > 0) await dispatcher.drain();
  const events = sink.requests.flatMap((r) => JSON.parse(r.body) as Array<{ id: string; type: string; data: Record<string, unknown> }>);
  const reads = events.filter((e) => e.type === 'fhir.patient.read');
  assert.equal(reads.length, 10_000);
  assert.equal(new Set(reads.map((e) => e.id)).size, 10_000, 'no event arrived twice');
  assert.ok(reads.every((e) => e.data.resource_id === 'p1' && e.data.resource_type === 'Patient'));
  for (const r of sink.requests) {
    assert.ok(!r.body.includes(app.secret), 'no client secret in an event');
    assert.ok(!/access_token|authorization|bearer/i.test(r.body), 'no token in an event');
  }
  const status = await app.events();
  assert.equal(status.dispatcher, 'CloudEventsDispatcher');
  assert.equal(status.enabled, true);
  assert.equal(status.sent, events.length);
  assert.equal(status.dropped, 0);
  assert.equal(status.queued, 0);
});
