import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../support/test-server.js';
import { sandbox } from '../support/sandbox.js';
import { gateway } from '../support/gateway-fixtures.js';

test('maxConnections: 4 under 200 concurrent reads: the sandbox never sees more than 4 sockets', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { maxConnections: 4 });
  gw.addSource('s', s.connectionString());
  s.stats.reset();
  const reads = await Promise.all(Array.from({ length: 200 }, (_, i) => gw.read('Patient', `a-patient-${(i % 5) + 1}`)));
  assert.equal(reads.length, 200);
  assert.ok(s.stats.maxOpenSockets <= 4, `saw ${s.stats.maxOpenSockets}`);
  assert.ok(s.stats.socketsAccepted <= 4);
  const status = gw.getPoolStatus();
  assert.deepEqual(status.limits, { maxConnections: 4, maxKeepaliveConnections: 20, keepaliveExpiry: 5 });
  assert.deepEqual({ active: status.totals.active, queued: status.totals.queued }, { active: 0, queued: 0 });
  assert.deepEqual(Object.keys(status.sources), ['s']);
  assert.equal(status.sources.s?.origin, s.origin);
  assert.equal(status.sources.s?.requests, 200);
  assert.equal(status.sources.s?.errors, 0);
});

test('idle sockets are closed after keepaliveExpiry', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { keepaliveExpiry: 0.3 });
  gw.addSource('s', s.connectionString());
  await Promise.all(Array.from({ length: 3 }, () => gw.read('Patient', 'a-patient-1')));
  assert.ok(gw.getPoolStatus().totals.idle >= 1);
  await until(() => s.stats.openSockets === 0, 'the sandbox to see every socket closed');
  assert.equal(gw.getPoolStatus().totals.idle, 0);
});

test('abort and time-out: ERR_ABORTED, ERR_TIMEOUT from the option and from the connection string', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { timeoutSeconds: 0.2 });
  gw.addSource('s', s.connectionString());
  gw.addSource('slow-ok', `${s.connectionString()}&timeout=120`);
  // The reads that must answer (a cold connection and a token fetch among them) go through the
  // connection string's generous time-out, so an event-loop stall cannot time them out.
  await gw.read('Patient', 'a-patient-1', 'slow-ok');
  s.faults.latency(60_000);
  const controller = new AbortController();
  const pending = gw.read('Patient', 'a-patient-1', 'slow-ok', { signal: controller.signal });
  await until(() => (s.stats.requests.byKind.read ?? 0) >= 2, 'the read to arrive');
  controller.abort();
  await assert.rejects(pending, { code: 'ERR_ABORTED' });
  await assert.rejects(gw.read('Patient', 'a-patient-1'), { code: 'ERR_TIMEOUT' });
  await assert.rejects(gw.read('Patient', 'a-patient-1', 's', { signal: AbortSignal.abort() }), { code: 'ERR_ABORTED' });
  s.faults.reset();
  assert.equal((await gw.read('Patient', 'a-patient-1', 'slow-ok')).id, 'a-patient-1');
});

test('close drains calls in flight, closes every socket, is idempotent; later calls are ERR_CLOSED', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  await gw.read('Patient', 'a-patient-1');
  s.faults.latency(300);
  const pending = gw.read('Patient', 'a-patient-2');
  await until(() => (s.stats.requests.byKind.read ?? 0) >= 2, 'the read to arrive');
  const closing = gw.close();
  assert.equal(gw.close(), closing);
  await assert.rejects(gw.read('Patient', 'a-patient-1'), { code: 'ERR_CLOSED' });
  assert.throws(() => gw.addSource('t', s.connectionString()), { code: 'ERR_CLOSED' });
  assert.equal((await pending).id, 'a-patient-2');
  await closing;
  await until(() => s.stats.openSockets === 0, 'every socket to close');
});

test('close waits for every call in flight, the ones that fail too', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  s.faults.latency(200);
  const settled: string[] = [];
  const ok = gw.read('Patient', 'a-patient-1').then(() => void settled.push('read'));
  const missing = gw.read('Patient', 'no-such-patient').catch((err: unknown) => void settled.push((err as { code: string }).code));
  await until(() => (s.stats.requests.byKind.read ?? 0) >= 2, 'both reads to arrive');
  await gw.close();
  assert.deepEqual(settled.sort(), ['ERR_FHIR_HTTP', 'read']);
  await Promise.all([ok, missing]);
});

test('await using closes the gateway', async (t) => {
  const s = await sandbox(t);
  let kept: { read: (type: 'Patient', id: string) => Promise<unknown> } | undefined;
  {
    await using gw = gateway(t).gw;
    gw.addSource('s', s.connectionString());
    await gw.read('Patient', 'a-patient-1');
    kept = gw;
  }
  await assert.rejects(kept.read('Patient', 'a-patient-1'), { code: 'ERR_CLOSED' });
  await until(() => s.stats.openSockets === 0, 'every socket to close');
});

test('re-adding a source replaces it and closes its old connections; a failed addSource stores nothing', async (t) => {
  const [a, b] = await Promise.all([sandbox(t, { seed: 'a' }), sandbox(t, { seed: 'b' })]);
  const { gw } = gateway(t);
  gw.addSource('main', a.connectionString());
  gw.addSource('other', b.connectionString());
  await gw.read('Patient', 'a-patient-1', 'main');
  assert.equal(a.stats.openSockets, 1);
  gw.addSource('main', b.connectionString());
  await until(() => a.stats.openSockets === 0, "the old source's socket to close");
  assert.deepEqual(gw.sourceNames, ['main', 'other']);
  assert.equal((await gw.read('Patient', 'b-patient-1', 'main')).id, 'b-patient-1');
  assert.throws(() => gw.addSource('main', 'fhir://h.example.org/?client_id=a'), { code: 'ERR_CONNECTION_STRING' });
  assert.throws(() => gw.addSource('new', `fhir://h.example.org/?client_id=a&client_secret_path=/nonexistent&use_jwt_assertion=true&token_url=https://h.example.org/t`), { code: 'ERR_AUTH_KEY' });
  assert.deepEqual(gw.sourceNames, ['main', 'other']);
  assert.equal(gw.sourceBaseUrl('main'), b.fhirBase);
});
