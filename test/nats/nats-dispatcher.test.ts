import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import type { DeliveryDrop } from '../../src/events/delivery-drop.js';
import { natsDispatcher } from '../../src/nats/index.js';
import { startNats } from '../support/bus-servers.js';
import { startReadingApp } from '../support/event-reads.js';

async function natsConnection(t: TestContext, servers: string): Promise<NatsConnection> {
  const nc = await connect({ servers });
  t.after(() => nc.close());
  return nc;
}

test('after 10,000 reads every fhir.patient.read arrives on NATS exactly once, subject = event name, no token or secret', async (t) => {
  const servers = await startNats(t);
  if (servers === undefined) return;
  const [publisher, subscriber] = [await natsConnection(t, servers), await natsConnection(t, servers)];
  const received: Array<{ subject: string; text: string }> = [];
  const sub = subscriber.subscribe('fhir.>', { callback: (_err, msg) => void received.push({ subject: msg.subject, text: msg.string() }) });
  await subscriber.flush();
  const dispatcher = natsDispatcher(publisher, { source: 'urn:fhirgate:test', maxQueue: 20_000 });
  t.after(() => dispatcher.close());
  const app = await startReadingApp(t, dispatcher);
  await app.read(10_000);
  await dispatcher.drain();
  // The server has every message once publisher.flush() resolved; a round trip on the subscriber's
  // connection makes sure they were delivered to it.
  await subscriber.flush();
  sub.unsubscribe();
  const reads = received.filter((m) => m.subject === 'fhir.patient.read').map((m) => JSON.parse(m.text) as { id: string; type: string; specversion: string; source: string; data: Record<string, unknown> });
  assert.equal(reads.length, 10_000);
  assert.equal(new Set(reads.map((e) => e.id)).size, 10_000, 'no event arrived twice');
  assert.ok(reads.every((e) => e.type === 'fhir.patient.read' && e.specversion === '1.0' && e.source === 'urn:fhirgate:test' && e.data.resource_id === 'p1'));
  for (const m of received) {
    assert.ok(!m.text.includes(app.secret), 'no client secret in an event');
    assert.ok(!/access_token|authorization|bearer/i.test(m.text), 'no token in an event');
  }
  const status = await app.events();
  assert.equal(status.dispatcher, 'NatsDispatcher');
  // Core NATS confirms nothing: the count is of hand-offs to the client, and says so.
  assert.equal(status.published, received.length);
  assert.equal(status.sent, undefined);
  assert.equal(status.dropped, 0);
});

test('an event name that is not a publishable subject is dropped and counted; a closed connection drops too', async (t) => {
  const servers = await startNats(t);
  if (servers === undefined) return;
  const nc = await connect({ servers });
  const logged: DeliveryDrop[] = [];
  const d = natsDispatcher(nc, { source: 'urn:x', dropLogger: (drop) => logged.push(drop) });
  d.emit('bad subject', {});
  d.emit('fhir.*', {});
  d.emit('fhir.patient.read', {});
  await d.drain();
  assert.deepEqual(d.status(), { published: 1, retried: 0, dropped: 2, queued: 0 });
  await nc.close();
  d.emit('fhir.patient.read', {});
  d.emit('fhir.patient.read', {});
  await d.drain();
  assert.deepEqual(d.status(), { published: 1, retried: 0, dropped: 4, queued: 0 });
  await d.close();
  // One line per reason, however many events it dropped.
  assert.deepEqual(logged.map((l) => [l.dispatcher, l.reason]), [
    ['natsDispatcher', 'the event name is not a NATS subject (whitespace, * or >)'],
    ['natsDispatcher', 'the NATS connection is closed'],
  ]);
});

test('natsDispatcher: bad arguments are TypeError / RangeError naming what is wrong', () => {
  const nc = { publish() {}, flush: async () => {} };
  assert.throws(() => natsDispatcher(null as never, { source: 'urn:x' }), { name: 'TypeError', message: /"nc"/ });
  assert.throws(() => natsDispatcher({ publish() {} } as never, { source: 'urn:x' }), { name: 'TypeError', message: /flush/ });
  assert.throws(() => natsDispatcher(nc, {} as never), { name: 'TypeError', message: /options\.source / });
  assert.throws(() => natsDispatcher(nc, { source: 'urn:x', batchSize: 0 }), { name: 'RangeError', message: /options\.batchSize / });
  assert.throws(() => natsDispatcher(nc, { source: 'urn:x', maxQueue: -1 }), { name: 'RangeError', message: /options\.maxQueue / });
  assert.throws(() => natsDispatcher(nc, { source: 'urn:x', mode: 'streaming' as never }), { name: 'TypeError', message: /options\.mode / });
  assert.throws(() => natsDispatcher(nc, { source: 'urn:x', mode: 'jetstream' }), { name: 'TypeError', message: /jetstream\(\)/ });
  const js = { ...nc, jetstream: () => ({ publish: async () => ({ stream: 's', seq: 1, duplicate: false }) }) };
  assert.throws(() => natsDispatcher(js, { source: 'urn:x', mode: 'jetstream', ackTimeoutMs: 0 }), { name: 'RangeError', message: /options\.ackTimeoutMs / });
  assert.throws(() => natsDispatcher(js, { source: 'urn:x', mode: 'jetstream', retryForMs: -1 }), { name: 'RangeError', message: /options\.retryForMs / });
  assert.throws(() => natsDispatcher(js, { source: 'urn:x', dropLogger: 'stderr' as never }), { name: 'TypeError', message: /options\.dropLogger / });
});
