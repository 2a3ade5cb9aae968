import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CloudEventsDispatcher, type CloudEventsDispatcherOptions } from '../../src/events/index.js';
import { percentEncodeHeader } from '../../src/events/cloud-event.js';
import type { DeliveryDrop } from '../../src/events/delivery-drop.js';
import { startEventSink } from '../support/event-sink.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function dispatcher(t: import('node:test').TestContext, options: CloudEventsDispatcherOptions): CloudEventsDispatcher {
  const d = new CloudEventsDispatcher(options);
  t.after(() => d.close());
  return d;
}

test('structured mode: one application/cloudevents+json POST per event with every required attribute', async (t) => {
  const sink = await startEventSink(t);
  const d = dispatcher(t, { url: sink.url, source: 'urn:fhirgate:test' });
  d.emit('fhir.patient.read', { resource_type: 'Patient', resource_id: 'p1', source: 'ehr' });
  d.emit('cdshooks.patient-view', { hook_instance: 'h1', cards: 2 });
  await d.drain();
  assert.equal(sink.requests.length, 2);
  const events = sink.requests.map((r) => {
    assert.equal(r.headers['content-type'], 'application/cloudevents+json; charset=utf-8');
    assert.match(String(r.headers['user-agent']), /^fhirgate\//, 'sent through src/http, like every outbound request');
    return JSON.parse(r.body);
  });
  events.sort((a, b) => a.type.localeCompare(b.type));
  for (const e of events) {
    assert.equal(e.specversion, '1.0');
    assert.match(e.id, UUID);
    assert.equal(e.source, 'urn:fhirgate:test');
    assert.equal(e.datacontenttype, 'application/json');
    assert.ok(!Number.isNaN(Date.parse(e.time)) && e.time.endsWith('Z'), e.time);
  }
  assert.notEqual(events[0].id, events[1].id);
  assert.deepEqual([events[0].type, events[0].data], ['cdshooks.patient-view', { hook_instance: 'h1', cards: 2 }]);
  assert.deepEqual([events[1].type, events[1].data], ['fhir.patient.read', { resource_type: 'Patient', resource_id: 'p1', source: 'ehr' }]);
  assert.deepEqual(d.status(), { sent: 2, retried: 0, dropped: 0, queued: 0 });
});

test('binary mode: ce- headers (percent-encoded), content-type from datacontenttype, the data as the body', async (t) => {
  const sink = await startEventSink(t);
  const d = dispatcher(t, { url: sink.url, source: '/fhirgate/région 1', mode: 'binary', headers: { authorization: 'Bearer sink-key' } });
  d.emit('fhir.patient.read', { resource_id: 'p1' });
  await d.drain();
  const [r] = sink.requests;
  assert.ok(r);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['ce-specversion'], '1.0');
  assert.equal(r.headers['ce-type'], 'fhir.patient.read');
  assert.equal(r.headers['ce-source'], '/fhirgate/r%C3%A9gion%201');
  assert.match(String(r.headers['ce-id']), UUID);
  assert.ok(!Number.isNaN(Date.parse(String(r.headers['ce-time']))));
  assert.equal(r.headers['ce-datacontenttype'], undefined);
  assert.equal(r.headers.authorization, 'Bearer sink-key', 'the sink header is sent');
  assert.deepEqual(JSON.parse(r.body), { resource_id: 'p1' });
  assert.equal(percentEncodeHeader('Euro € 😀 "%'), 'Euro%20%E2%82%AC%20%F0%9F%98%80%20%22%25');
});

test('batch mode: application/cloudevents-batch+json arrays of at most batchSize events', async (t) => {
  const sink = await startEventSink(t);
  const d = dispatcher(t, { url: sink.url, source: 'urn:x', mode: 'batch', batchSize: 10, concurrency: 1 });
  for (let i = 0; i < 35; i++) d.emit('fhir.patient.read', { resource_id: `p${i}` });
  await d.drain();
  const batches = sink.requests.map((r) => {
    assert.equal(r.headers['content-type'], 'application/cloudevents-batch+json; charset=utf-8');
    return JSON.parse(r.body) as Array<{ specversion: string; data: { resource_id: string } }>;
  });
  assert.ok(batches.every((b) => Array.isArray(b) && b.length >= 1 && b.length <= 10));
  assert.deepEqual(batches.flat().map((e) => e.data.resource_id).sort(), Array.from({ length: 35 }, (_, i) => `p${i}`).sort());
  assert.ok(batches.flat().every((e) => e.specversion === '1.0'));
});

test('a sink that is down for 2 s loses nothing that fits in the queue, and nothing arrives twice', async (t) => {
  const sink = await startEventSink(t);
  const d = dispatcher(t, { url: sink.url, source: 'urn:x', retryBaseDelayMs: 20, maxRetryDelayMs: 200 });
  await sink.down();
  for (let i = 0; i < 500; i++) d.emit('fhir.patient.read', { resource_id: `p${i}` });
  await sleep(2000);
  assert.equal(sink.requests.length, 0);
  await sink.up();
  while (d.status().queued > 0) await d.drain();
  const ids = sink.requests.map((r) => JSON.parse(r.body).id as string);
  assert.equal(ids.length, 500);
  assert.equal(new Set(ids).size, 500);
  const status = d.status();
  assert.equal(status.sent, 500);
  assert.equal(status.dropped, 0);
  assert.ok(status.retried > 0, 'deliveries were retried while the sink was down');
});

test('a full queue drops what does not fit (counted), never blocks emit; close() drops the rest', async (t) => {
  const sink = await startEventSink(t);
  await sink.down();
  const d = new CloudEventsDispatcher({ url: sink.url, source: 'urn:x', maxQueue: 10, concurrency: 1, retryBaseDelayMs: 1000, drainTimeoutMs: 0 });
  for (let i = 0; i < 25; i++) d.emit('fhir.patient.read', { resource_id: `p${i}` });
  // One event is being delivered, ten wait, fourteen were dropped at emit.
  assert.deepEqual(d.status(), { sent: 0, retried: 0, dropped: 14, queued: 11 });
  await d.close();
  await d.close();
  const after = d.status();
  assert.equal(after.sent, 0);
  assert.equal(after.dropped + after.queued, 25);
  d.emit('fhir.patient.read', { resource_id: 'late' });
  assert.equal(d.status().dropped, after.dropped + 1, 'an event after close is dropped');
});

test('a 503 is retried until the sink takes the event; a 400 drops it', async (t) => {
  const sink = await startEventSink(t);
  const d = dispatcher(t, { url: sink.url, source: 'urn:x', concurrency: 1, retryBaseDelayMs: 5, maxRetryDelayMs: 20 });
  sink.status = 503;
  d.emit('a.b', { n: 1 });
  while (d.status().retried < 2) await sleep(5);
  sink.status = 200;
  await d.drain();
  assert.equal(sink.requests.length, 1);
  sink.status = 400;
  d.emit('a.b', { n: 2 });
  await d.drain();
  assert.deepEqual({ ...d.status(), retried: 0 }, { sent: 1, retried: 0, dropped: 1, queued: 0 });
});

test('a URL with user:password@ is refused at once (ERR_INVALID_ARG_VALUE) without repeating it; the credentials go in headers', async (t) => {
  const sink = await startEventSink(t);
  const withUserinfo = sink.url.replace('http://', 'http://hook:S3cretPass@');
  assert.throws(() => new CloudEventsDispatcher({ url: withUserinfo, source: 'urn:x' }), (err: TypeError & { code?: string }) => {
    assert.equal(err.name, 'TypeError');
    assert.equal(err.code, 'ERR_INVALID_ARG_VALUE');
    assert.match(err.message, /options\.url must not hold credentials/);
    assert.ok(!err.message.includes('S3cretPass') && !err.message.includes('hook'), err.message);
    return true;
  });
  assert.throws(() => new CloudEventsDispatcher({ url: sink.url.replace('http://', 'http://hook@'), source: 'urn:x' }), { code: 'ERR_INVALID_ARG_VALUE' });
  const basic = `Basic ${Buffer.from('hook:S3cretPass').toString('base64')}`;
  const d = dispatcher(t, { url: sink.url, source: 'urn:x', headers: { authorization: basic } });
  d.emit('fhir.patient.read', { resource_id: 'p1' });
  await d.drain();
  assert.equal(sink.requests[0]?.headers.authorization, basic);
  assert.ok(!sink.requests[0]!.body.includes('S3cretPass'), 'never in the event');
  for (const headers of [{ authorization: 'Bearer a\r\nx-injected: 1' }, { 'bad name': 'v' }, { x: 'caf\u0100' }] as Array<Record<string, string>>) {
    assert.throws(() => new CloudEventsDispatcher({ url: sink.url, source: 'urn:x', headers }), (err: TypeError & { code?: string }) => {
      assert.equal(err.code, 'ERR_INVALID_ARG_VALUE');
      assert.ok(!err.message.includes('Bearer a') && !err.message.includes('bad name'), err.message);
      return true;
    });
  }
});

test('a sink that refuses for good (401, a redirect) drops the events: counted, one log line per reason, no retry', async (t) => {
  const sink = await startEventSink(t);
  const logged: DeliveryDrop[] = [];
  const d = dispatcher(t, { url: sink.url, source: 'urn:x', concurrency: 1, retryBaseDelayMs: 5, dropLogger: (drop) => logged.push(drop) });
  sink.status = 401;
  for (let i = 0; i < 5; i++) d.emit('fhir.patient.read', { resource_id: `p${i}` });
  await d.drain();
  sink.status = 302;
  for (let i = 0; i < 3; i++) d.emit('fhir.patient.read', { resource_id: `q${i}` });
  await d.drain();
  assert.deepEqual(d.status(), { sent: 0, retried: 0, dropped: 8, queued: 0 });
  assert.deepEqual(logged, [
    { dispatcher: 'CloudEventsDispatcher', reason: 'the sink answered 401', events: 1 },
    { dispatcher: 'CloudEventsDispatcher', reason: 'the sink answered 302', events: 1 },
  ]);
});

test('the default drop log is one JSON line on stderr, with neither the event nor a header', async (t) => {
  const sink = await startEventSink(t);
  sink.status = 403;
  const lines: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const d = dispatcher(t, { url: sink.url, source: 'urn:x', headers: { authorization: 'Bearer sink-key' } });
    d.emit('fhir.patient.read', { resource_id: 'secret-id' });
    d.emit('fhir.patient.read', { resource_id: 'secret-id-2' });
    await d.drain();
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(lines.map((l) => JSON.parse(l)), [{ level: 'error', msg: 'events dropped', dispatcher: 'CloudEventsDispatcher', reason: 'the sink answered 403', events: 1 }]);
});

test('bad options are TypeError / RangeError naming the option', () => {
  const ok = { url: 'http://127.0.0.1:1/e', source: 'urn:x' };
  assert.throws(() => new CloudEventsDispatcher(undefined as never), { name: 'TypeError' });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, url: 'ftp://x/e' }), { name: 'TypeError', message: /options\.url / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, url: 'not a url' }), { name: 'TypeError', message: /options\.url / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, source: '' }), { name: 'TypeError', message: /options\.source / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, mode: 'xml' as never }), { name: 'TypeError', message: /options\.mode / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, maxQueue: 0 }), { name: 'RangeError', message: /options\.maxQueue / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, concurrency: 1.5 }), { name: 'RangeError', message: /options\.concurrency / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, mode: 'batch', batchSize: '5' as never }), { name: 'TypeError', message: /options\.batchSize / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, retryBaseDelayMs: 500, maxRetryDelayMs: 100 }), { name: 'RangeError', message: /options\.maxRetryDelayMs / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, headers: { a: 1 } as never }), { name: 'TypeError', message: /options\.headers / });
  assert.throws(() => new CloudEventsDispatcher({ ...ok, timeoutMs: 0 }), { name: 'RangeError', message: /options\.timeoutMs / });
});

test('local handlers registered on the dispatcher still run', async (t) => {
  const sink = await startEventSink(t);
  const d = dispatcher(t, { url: sink.url, source: 'urn:x' });
  const seen: string[] = [];
  const off = d.register('fhir.*', ([name]) => void seen.push(name));
  d.emit('fhir.patient.read', {});
  off();
  d.emit('fhir.patient.read', {});
  await d.drain();
  assert.deepEqual(seen, ['fhir.patient.read']);
  assert.equal(sink.requests.length, 2);
});
