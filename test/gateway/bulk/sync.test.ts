/** FHIRGateway.bulkExport and bulkExportAll: sync iterators over the worker, the sandbox on another thread. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalEventDispatcher } from '../../../src/events/index.js';
import type { EventPair } from '../../../src/events/index.js';
import { FHIRGateway } from '../../../src/gateway/index.js';
import { startRemoteSandbox } from '../../support/sync-gateway-helpers.js';

test('the sync gateway exports as a sync iterator, with the same items and events as the async one', async (t) => {
  const sb = await startRemoteSandbox(t, { exportPolls: 1, exportRetryAfterSeconds: 0 });
  const other = await startRemoteSandbox(t, { seed: 'b', exportPolls: 0 });
  const dispatcher = new LocalEventDispatcher();
  const events: EventPair[] = [];
  dispatcher.register('fhir.bulk.*', (pair) => void events.push(pair));
  const gw = new FHIRGateway({ dispatcher });
  t.after(() => gw.close());
  gw.addSource('sb', await sb.connectionString());
  gw.addSource('other', await other.connectionString());

  const items = Array.from(gw.bulkExport('sb', { types: ['Patient'] }));
  const patients = gw.search('Patient', { _count: 100 }, 'sb');
  assert.deepEqual(items.map((i) => i.resource.id).sort(), patients.entry?.map((e) => e.resource?.id).sort());
  assert.ok(items.every((i) => i.kind === 'output' && i.type === 'Patient' && i.source === 'sb' && i.url.startsWith(`${sb.fhirBase}/$export-file/`)));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(events.map(([name]) => name), ['fhir.bulk.kickoff', 'fhir.bulk.progress', 'fhir.bulk.complete']);
  assert.equal(events[2]?.[1].resource_count, items.length);

  const all = Array.from(gw.bulkExportAll(undefined, { types: ['Patient'] }));
  assert.deepEqual(new Set(all.map((i) => i.source)), new Set(['sb', 'other']));
  assert.equal(all.filter((i) => i.source === 'other').length, gw.search('Patient', {}, 'other').total);

  // Leaving the loop early cancels: the job is deleted on the server.
  const before = (await sb.stats()).requests.byMethod.DELETE ?? 0;
  for (const item of gw.bulkExport('sb', { types: ['Patient'] })) {
    assert.equal(item.type, 'Patient');
    break;
  }
  assert.equal((await sb.stats()).requests.byMethod.DELETE, before + 1);
  assert.equal(gw.openCursors, 0);
});

test('the sync gateway checks export options at once and refuses a signal', () => {
  using gw = new FHIRGateway();
  assert.throws(() => gw.bulkExport('x', { types: ['Nope' as 'Patient'] }), { name: 'TypeError', message: /options\.types/ });
  assert.throws(() => gw.bulkExport('x', { signal: AbortSignal.abort() } as never), { name: 'TypeError', message: /options\.signal: a blocking FHIRGateway call cannot be aborted/ });
  assert.throws(() => gw.bulkExportAll(['x'], { deadlineSeconds: -5 }), { name: 'RangeError', message: /options\.deadlineSeconds/ });
});
