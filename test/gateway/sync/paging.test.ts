import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalEventDispatcher } from '../../../src/events/index.js';
import type { EventPair } from '../../../src/events/index.js';
import type { Bundle, Patient } from '../../../src/fhir/index.js';
import { createEntry, readEntry, requestBundle } from '../../../src/gateway/index.js';
import { FHIRGateway } from '../../../src/gateway/sync-gateway.js';
import { startRemoteSandbox } from '../../support/sync-gateway-helpers.js';

function gateway(t: { after(fn: () => void): void }): { gw: FHIRGateway; events: EventPair[] } {
  const dispatcher = new LocalEventDispatcher();
  const events: EventPair[] = [];
  dispatcher.register('*', (pair) => void events.push(pair));
  const gw = new FHIRGateway({ dispatcher });
  t.after(() => gw.close());
  return { gw, events };
}

test('sync pages and searchAll page through the sandbox one blocking call a page', async (t) => {
  const s = await startRemoteSandbox(t);
  const { gw, events } = gateway(t);
  gw.addSource('s', await s.connectionString());
  const everyone = gw.search('Patient', { _count: 100 }).entry!.map((e) => e.resource!.id);
  const pages = Array.from(gw.pages('Patient', { _count: 2 }, 's'));
  assert.equal(pages.length, Math.ceil(everyone.length / 2));
  assert.ok(pages.every((p: Bundle) => p.resourceType === 'Bundle' && !(p instanceof Promise)));
  const all = Array.from(gw.searchAll('Patient', { _count: 2 }), (p: Patient) => p.id);
  assert.deepEqual(all, everyone);
  assert.deepEqual(Array.from(gw.searchAll('Patient', { _count: 2 }, 's', { maxResources: 3 }), (p) => p.id), everyone.slice(0, 3));
  assert.equal(Array.from(gw.pages('Patient', { _count: 1 }, 's', { maxPages: 2 })).length, 2);
  const before = (await s.stats()).requests.byKind.search ?? 0;
  for (const _ of gw.pages('Patient', { _count: 1 })) break;
  assert.equal(((await s.stats()).requests.byKind.search ?? 0) - before, 1, 'breaking out fetches no further page');
  const pageEvents = events.filter(([name, p]) => name === 'fhir.patient.search' && p.page !== undefined);
  assert.ok(pageEvents.length >= pages.length, 'page events come back to the calling thread');
});

test('sync paging options are checked on the calling thread; a signal is refused', async (t) => {
  const { gw } = gateway(t);
  assert.throws(() => gw.pages('Patient', {}, undefined, { maxPages: -1 }), { name: 'RangeError', message: /maxPages/ });
  assert.throws(() => gw.searchAll('Patient', {}, undefined, { signal: AbortSignal.abort() } as object), { name: 'TypeError', message: /signal/ });
  assert.throws(() => gw.create({ resourceType: 'Patient' }, undefined, { ifNoneExist: '?a=b' }), { name: 'RangeError' });
  assert.throws(() => gw.create({ resourceType: 'Patient' }, undefined, 'x' as unknown as object), TypeError);
});

test('sync conditional create, transaction and batch', async (t) => {
  const s = await startRemoteSandbox(t);
  const { gw, events } = gateway(t);
  gw.addSource('s', await s.connectionString());
  const mrn: Patient = { resourceType: 'Patient', identifier: [{ system: 'urn:mrn', value: '42' }] };
  const a = gw.create(mrn, 's', { ifNoneExist: 'identifier=urn:mrn|42' });
  const b = gw.create(mrn, 's', { ifNoneExist: { identifier: 'urn:mrn|42' } });
  assert.equal(a.id, b.id);
  const tx = gw.transaction(requestBundle('transaction', [createEntry({ resourceType: 'Patient', active: true } as Patient)]), 's');
  assert.deepEqual(tx.entry?.map((e) => e.response?.status), ['201 Created']);
  const batch = gw.batch(requestBundle('batch', [readEntry('Patient', a.id!), readEntry('Patient', 'gone-nowhere')]));
  assert.deepEqual(batch.entry?.map((e) => e.response?.status), ['200 OK', '404 Not Found']);
  assert.throws(() => gw.transaction({ resourceType: 'Bundle', type: 'batch' }), { code: 'ERR_INVALID_RESOURCE' });
  const names = events.map(([name]) => name);
  assert.ok(names.includes('fhir.bundle.transaction') && names.includes('fhir.bundle.batch'));
  assert.deepEqual(events.filter(([name]) => name === 'fhir.patient.create').map(([, p]) => p.created), [true, false]);
});

test('a page that fails ends the sync iterator with the error', async (t) => {
  const s = await startRemoteSandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', await s.connectionString());
  const it = gw.searchAll('Patient', { _count: 1 });
  assert.equal(it.next().done, false);
  await s.fault('failNext', 1, 500);
  assert.throws(() => it.next(), { code: 'ERR_FHIR_HTTP', status: 500 });
  assert.equal(it.next().done, true);
  assert.throws(() => gw.pages('NotAType' as 'Patient').next(), { code: 'ERR_INVALID_RESOURCE_TYPE' });
});

test('the sync gateway hands its retry options to the worker: retried by default, not with retry: false', async (t) => {
  const s = await startRemoteSandbox(t);
  const cs = await s.connectionString();
  const retrying = new FHIRGateway({ retryBaseDelayMs: 10 });
  const once = new FHIRGateway({ retry: false });
  t.after(() => { retrying.close(); once.close(); });
  retrying.addSource('s', cs);
  once.addSource('s', cs);
  retrying.search('Patient', { _count: 1 }); // token and socket in place
  once.search('Patient', { _count: 1 });
  const before = (await s.stats()).requests.byKind.search ?? 0;
  await s.fault('failNext', 1, 503);
  assert.equal(retrying.search('Patient', { _count: 1 }).resourceType, 'Bundle');
  await s.fault('failNext', 1, 503);
  assert.throws(() => once.search('Patient', { _count: 1 }), { code: 'ERR_FHIR_HTTP', status: 503 });
  assert.equal(((await s.stats()).requests.byKind.search ?? 0) - before, 3, 'retried once, then sent once');
  assert.throws(() => new FHIRGateway({ maxRetries: -1 }), RangeError);
});
