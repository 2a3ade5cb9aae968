import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Patient } from '../../../src/fhir/index.js';
import { AsyncFHIRGateway } from '../../../src/gateway/index.js';
import { FHIRGateway } from '../../../src/gateway/sync-gateway.js';
import { retryMessages } from '../../support/retry-messages.js';
import { startServer, until } from '../../support/test-server.js';
import { sandbox } from '../../support/sandbox.js';
import { gateway } from '../../support/gateway-fixtures.js';
import { startRemoteSandbox } from '../../support/sync-gateway-helpers.js';

const patient = JSON.stringify({ resourceType: 'Patient', id: '1' });
const fast = { retryBaseDelayMs: 1, maxRetryDelayMs: 10 };

test('429 with Retry-After: 1, then success: two requests, the second at least 1 s after the first (server clock)', async (t) => {
  const srv = await startServer(t, (_req, res) => {
    if (srv.seen.length === 1) {
      res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'throttled' }] }));
    } else res.end(patient);
  });
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/fhir`);
  const read = await gw.read('Patient', '1');
  assert.equal(read.id, '1');
  assert.equal(srv.seen.length, 2);
  const [first, second] = srv.seen;
  assert.ok(second!.at - first!.at >= 990, `the retry came ${second!.at - first!.at} ms after the first request`);
});

test('Retry-After as an HTTP-date: the retry arrives no earlier than that date (server clock)', async (t) => {
  let notBefore = 0;
  const arrivals: number[] = [];
  const srv = await startServer(t, (_req, res) => {
    arrivals.push(Date.now());
    if (arrivals.length === 1) {
      notBefore = (Math.floor(Date.now() / 1000) + 2) * 1000;
      res.writeHead(503, { 'retry-after': new Date(notBefore).toUTCString() });
      res.end();
    } else res.end(patient);
  });
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/fhir`);
  assert.equal((await gw.read('Patient', '1')).id, '1');
  assert.equal(arrivals.length, 2);
  assert.ok(arrivals[1]! >= notBefore - 5, `arrived ${notBefore - arrivals[1]!} ms before the date`);
});

test('503 three times with maxRetries: 2: ERR_FHIR_HTTP 503 after exactly 3 requests; the next call succeeds', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { maxRetries: 2, ...fast });
  gw.addSource('s', s.connectionString());
  s.faults.failNext(3, 503);
  await assert.rejects(gw.read('Patient', 'a-patient-1'), { code: 'ERR_FHIR_HTTP', status: 503, message: /503 Service Unavailable/ });
  assert.equal(s.stats.requests.byKind.read, 3);
  assert.equal((await gw.read('Patient', 'a-patient-1')).id, 'a-patient-1');
  assert.equal(s.stats.requests.byKind.read, 4);
});

test('the defaults retry twice: 502, 504 then success', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  s.faults.failNext(1, 502);
  s.faults.failNext(1, 504);
  assert.equal((await gw.search('Patient', { _count: 1 })).resourceType, 'Bundle');
  assert.equal(s.stats.requests.byKind.search, 3);
});

test('a create (POST) that gets 503 is not retried; a conditional create is', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, fast);
  gw.addSource('s', s.connectionString());
  s.faults.failNext(1, 503);
  await assert.rejects(gw.create({ resourceType: 'Patient', name: [{ family: 'Once' }] }), { code: 'ERR_FHIR_HTTP', status: 503 });
  assert.equal(s.stats.requests.byKind.create, 1);
  s.faults.failNext(1, 503);
  const created = await gw.create<Patient>({ resourceType: 'Patient', identifier: [{ system: 'urn:x', value: 'retry-1' }] }, 's', { ifNoneExist: 'identifier=urn:x|retry-1' });
  assert.equal(typeof created.id, 'string');
  assert.equal(s.stats.requests.byKind.create, 3);
});

test('retry: false per call, or for the whole gateway, sends the request once', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, fast);
  gw.addSource('s', s.connectionString());
  s.faults.failNext(1, 503);
  await assert.rejects(gw.read('Patient', 'a-patient-1', 's', { retry: false }), { code: 'ERR_FHIR_HTTP', status: 503 });
  assert.equal(s.stats.requests.byKind.read, 1);
  const controller = new AbortController();
  s.faults.failNext(1, 503);
  await assert.rejects(gw.read('Patient', 'a-patient-1', 's', { retry: false, signal: controller.signal }), { code: 'ERR_FHIR_HTTP', status: 503 });
  assert.equal(s.stats.requests.byKind.read, 2);
  s.faults.failNext(1, 503);
  assert.equal((await gw.read('Patient', 'a-patient-1', 's', { retry: true })).id, 'a-patient-1');
  assert.equal(s.stats.requests.byKind.read, 4);

  const { gw: off } = gateway(t, { retry: false });
  off.addSource('s', s.connectionString());
  s.faults.failNext(1, 429);
  await assert.rejects(off.read('Patient', 'a-patient-1'), { code: 'ERR_FHIR_HTTP', status: 429 });
  assert.equal(s.stats.requests.byKind.read, 5);
});

test('an abort during a backoff wait rejects with ERR_ABORTED at once; nothing more is sent', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { maxRetryDelayMs: 60_000, timeoutSeconds: 120 });
  gw.addSource('s', s.connectionString());
  const retries = retryMessages(t, s.origin);
  s.faults.failNext(1, 503, { retryAfter: 30 });
  const controller = new AbortController();
  const pending = gw.read('Patient', 'a-patient-1', 's', { signal: controller.signal });
  await until(() => retries.length === 1, 'the backoff wait to start');
  assert.equal(retries[0]?.delayMs, 30_000);
  const started = Date.now();
  controller.abort();
  await assert.rejects(pending, { code: 'ERR_ABORTED' });
  assert.ok(Date.now() - started < 20_000, 'long before the 30 s wait would end');
  assert.equal(s.stats.requests.byKind.read, 1);
});

test('a Retry-After longer than the time-out is not waited for: the 503 comes back at once', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { maxRetryDelayMs: 60_000, timeoutSeconds: 5 });
  gw.addSource('s', s.connectionString());
  s.faults.failNext(1, 503, { retryAfter: 10 });
  await assert.rejects(gw.read('Patient', 'a-patient-1'), { code: 'ERR_FHIR_HTTP', status: 503 });
  assert.equal(s.stats.requests.byKind.read, 1);
});

test('the sync gateway retries the same way (its worker runs the async core)', async (t) => {
  const remote = await startRemoteSandbox(t);
  const gw = new FHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('s', await remote.connectionString());
  await remote.fault('failNext', 2, 503);
  assert.equal(gw.read('Patient', 'a-patient-1').id, 'a-patient-1');
  assert.equal((await remote.stats()).requests.byKind.read, 3);
});

test('bad retry options throw TypeError or RangeError naming the option', () => {
  assert.throws(() => new AsyncFHIRGateway({ maxRetries: -1 }), { name: 'RangeError', message: /options\.maxRetries/ });
  assert.throws(() => new AsyncFHIRGateway({ maxRetries: 0.5 }), { name: 'RangeError', message: /options\.maxRetries/ });
  assert.throws(() => new AsyncFHIRGateway({ retry: 1 as never }), { name: 'TypeError', message: /options\.retry/ });
  assert.throws(() => new AsyncFHIRGateway({ retryOn: [200] }), { name: 'TypeError', message: /options\.retryOn/ });
  assert.throws(() => new AsyncFHIRGateway({ retryBaseDelayMs: -1 }), { name: 'RangeError', message: /options\.retryBaseDelayMs/ });
  assert.throws(() => new AsyncFHIRGateway({ maxRetryDelayMs: 'x' as never }), { name: 'TypeError', message: /options\.maxRetryDelayMs/ });
  const gw = new AsyncFHIRGateway({ events: false });
  assert.throws(() => gw.read('Patient', '1', undefined, { retry: 'no' as never }), { name: 'TypeError', message: /options\.retry/ });
  return gw.close();
});
