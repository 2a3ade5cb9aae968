import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, nanos, StorageType, type NatsConnection } from 'nats';
import type { DeliveryDrop } from '../../src/events/delivery-drop.js';
import { natsDispatcher, type JetStreamCounts } from '../../src/nats/index.js';
import { startNatsServer } from '../support/bus-servers.js';
import { startReadingApp } from '../support/event-reads.js';

const EVENTS = 10_000;

async function connection(t: TestContext, servers: string): Promise<NatsConnection> {
  // What a deployment should set: reconnect for ever, quickly.
  const nc = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  t.after(() => nc.close());
  return nc;
}

/** Every message the stream holds, as a consumer reads them: the CloudEvent ids, in stream order. */
async function streamIds(nc: NatsConnection, stream: string): Promise<string[]> {
  const { state } = await (await nc.jetstreamManager()).streams.info(stream);
  const ids: string[] = [];
  if (state.messages === 0) return ids;
  const messages = await (await nc.jetstream().consumers.get(stream)).consume();
  for await (const m of messages) {
    ids.push((m.json() as { id: string }).id);
    if (m.info.pending === 0) break;
  }
  await messages.close();
  return ids;
}

test('JetStream mode: a nats-server restart mid-load loses 0 and duplicates 0 of 10,000 read events, as a consumer of the stream sees them', async (t) => {
  const server = await startNatsServer(t, { jetStream: true });
  if (server === undefined) return;
  const nc = await connection(t, server.url);
  await (await nc.jetstreamManager()).streams.add({ name: 'FHIRGATE', subjects: ['fhir.>'], storage: StorageType.File, duplicate_window: nanos(120_000) });
  const dispatcher = natsDispatcher(nc, { source: 'urn:fhirgate:test', mode: 'jetstream', maxQueue: 20_000, ackTimeoutMs: 2000, drainTimeoutMs: 60_000 });
  t.after(() => dispatcher.close());
  const app = await startReadingApp(t, dispatcher);
  let readsDone = false;
  const reading = app.read(EVENTS).then(() => (readsDone = true));

  while ((dispatcher.status() as JetStreamCounts).sent < 1000) await sleep(10);
  const atStop = dispatcher.status() as JetStreamCounts;
  await server.stop();
  await sleep(1000);
  await server.start();
  assert.equal(readsDone, false, 'the restart happened while reads were still emitting events');
  await reading;
  await dispatcher.drain();

  const status = dispatcher.status() as JetStreamCounts;
  const ids = await streamIds(nc, 'FHIRGATE');
  const unique = new Set(ids).size;
  t.diagnostic(`restart after ${atStop.sent} acknowledged; stream holds ${ids.length} messages, ${unique} distinct: lost ${EVENTS - unique}, duplicated ${ids.length - unique}; status ${JSON.stringify(status)}`);
  assert.equal(unique, EVENTS, 'lost none');
  assert.equal(ids.length, EVENTS, 'stored none twice');
  assert.equal(status.sent, EVENTS);
  assert.equal(status.dropped, 0);
  assert.equal(status.queued, 0);
  assert.ok(status.retried > 0, 'publishes were retried across the restart');
  const events = await app.events();
  assert.equal(events.sent, EVENTS);
  assert.equal(events.published, undefined);
});

test('JetStream mode: an event no stream acknowledges within retryForMs is dropped, counted and logged once', async (t) => {
  const server = await startNatsServer(t, { jetStream: true });
  if (server === undefined) return;
  const nc = await connection(t, server.url);
  const logged: DeliveryDrop[] = [];
  const d = natsDispatcher(nc, { source: 'urn:x', mode: 'jetstream', retryForMs: 300, retryBaseDelayMs: 20, ackTimeoutMs: 200, dropLogger: (drop) => logged.push(drop) });
  for (let i = 0; i < 3; i++) d.emit('fhir.patient.read', { resource_id: `p${i}` });
  await d.drain();
  const status = d.status() as JetStreamCounts;
  assert.equal(status.sent, 0);
  assert.equal(status.dropped, 3);
  assert.deepEqual(logged.map((l) => l.reason), ['not delivered within retryForMs (300 ms)']);
  await d.close();
});
