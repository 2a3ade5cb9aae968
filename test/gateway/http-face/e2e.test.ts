import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsyncFHIRGateway, FHIRGateway } from '../../../src/gateway/index.js';
import { aggregateSources, SOURCE_TAG_SYSTEM } from '../../../src/gateway/aggregate-sources.js';
import type { Bundle, BundleEntry, Observation, OperationOutcome, Resource } from '../../../src/fhir/index.js';
import { MOUNT } from '../../../src/mount/index.js';
import { fakeRequest } from '../../support/route-request.js';
import { call, routeOf } from './fixtures.js';
import { startRemoteSandbox } from '../../support/sync-gateway-helpers.js';
import { sandbox } from '../../support/sandbox.js';

const obs = (id: string, patient: string): Observation => ({
  resourceType: 'Observation',
  id,
  status: 'final',
  code: { text: 'heart rate' },
  subject: { reference: `Patient/${patient}` },
});

const SEED_A = [{ resourceType: 'Patient', id: 'p1' }, obs('a1', 'p1'), obs('shared', 'p1')] as Resource[];
const SEED_B = [{ resourceType: 'Patient', id: 'p1' }, obs('shared', 'p1'), obs('b1', 'p1'), obs('b2', 'p2')] as Resource[];

async function twoSources(t: { after(fn: () => Promise<void>): void }) {
  const a = await sandbox(t, { seed: SEED_A });
  const b = await sandbox(t, { seed: SEED_B });
  const gw = new AsyncFHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('a', a.connectionString());
  gw.addSource('b', b.connectionString());
  return { a, b, gw };
}

const summary = (bundle: Bundle) =>
  (bundle.entry ?? []).map((e: BundleEntry) => [
    e.resource?.resourceType,
    e.resource?.id,
    e.resource?.meta?.tag?.find((tag) => tag.system === SOURCE_TAG_SYSTEM)?.code,
    e.search?.mode,
  ]);

test('aggregateSources over two sandboxes through the real AsyncFHIRGateway', async (t) => {
  const { b, gw } = await twoSources(t);
  const bundle = await aggregateSources(gw, { resourceType: 'Observation', params: { patient: 'p1' }, sources: ['a', 'b'], timeoutSeconds: 60 });
  assert.equal(bundle.type, 'searchset');
  assert.equal(bundle.total, 4);
  assert.deepEqual(
    summary(bundle).map((row) => row.slice(1, 3).join('@')).sort(),
    ['a1@a', 'b1@b', 'shared@a', 'shared@b'],
  );
  b.faults.failNext(5, 500);
  const partial = await aggregateSources(gw, { resourceType: 'Observation', params: { patient: 'p1' }, sources: ['a', 'b', 'nowhere'], timeoutSeconds: 60 });
  const rows = summary(partial);
  assert.deepEqual(rows.filter((r) => r[0] === 'Observation').map((r) => r[2]), ['a', 'a']);
  const outcomes = (partial.entry ?? []).filter((e) => e.search?.mode === 'outcome');
  assert.deepEqual(outcomes.map((e) => e.resource?.meta?.tag?.[0]?.code), ['b', 'nowhere']);
  assert.match((outcomes[0]?.resource as OperationOutcome).issue[0]?.diagnostics ?? '', /"b" failed: the server answered HTTP 500/);
  assert.equal((outcomes[1]?.resource as OperationOutcome).issue[0]?.code, 'not-found');
});

test('the mounted face serves transform and aggregate handlers of the real gateway over two sandboxes', async (t) => {
  const { gw } = await twoSources(t);
  const face = gw[MOUNT]();
  gw.transform('Patient', async (id, source) => ({ ...(await gw.read('Patient', id, source)), active: true }));
  gw.aggregate('Observation', (patientId, sources) =>
    aggregateSources(gw, { resourceType: 'Observation', params: { patient: patientId }, sources: sources ?? gw.sourceNames }));
  const read = await call(routeOf(face, '/transform/:type/:id'), fakeRequest({ params: { type: 'Patient', id: 'p1' }, query: 'source=b' }));
  assert.equal(read.status, 200);
  assert.deepEqual([read.body.resourceType, read.body.id, read.body.active], ['Patient', 'p1', true]);
  const missing = await call(routeOf(face, '/transform/:type/:id'), fakeRequest({ params: { type: 'Patient', id: 'nobody' } }));
  assert.equal(missing.status, 404);
  assert.match(missing.body.issue[0].diagnostics, /Patient\/nobody was not found at the source/);
  const all = await call(routeOf(face, '/aggregate/:type'), fakeRequest({ params: { type: 'Observation' }, query: 'patient_id=p1' }));
  assert.equal(all.status, 200);
  assert.equal(all.body.total, 4);
  const onlyB = await call(routeOf(face, '/aggregate/:type'), fakeRequest({ params: { type: 'Observation' }, query: 'patient_id=p1&sources=b' }));
  assert.equal(onlyB.body.total, 2);
  const status = await call(routeOf(face, '/status'), fakeRequest());
  assert.deepEqual(status.body.sources, { count: 2, names: ['a', 'b'] });
  assert.equal(status.body.events.enabled, false);
  assert.ok(status.body.connection_pool.limits);
  assert.doesNotMatch(status.text, /demo-secret/);
});

test('aggregateSources and the face work with the synchronous FHIRGateway (sandboxes on other threads)', async (t) => {
  const a = await startRemoteSandbox(t, { seed: SEED_A });
  const b = await startRemoteSandbox(t, { seed: SEED_B });
  const gw = new FHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('a', await a.connectionString());
  gw.addSource('b', await b.connectionString());
  const bundle = await aggregateSources(gw, { resourceType: 'Observation', params: { patient: 'p1' }, sources: ['a', 'b'], timeoutSeconds: 60 });
  assert.deepEqual(
    summary(bundle).map((row) => row.slice(1, 3).join('@')).sort(),
    ['a1@a', 'b1@b', 'shared@a', 'shared@b'],
  );
  const face = gw[MOUNT]();
  gw.transform('Patient', (id, source) => gw.read('Patient', id, source));
  const read = await call(routeOf(face, '/transform/:type/:id'), fakeRequest({ params: { type: 'Patient', id: 'p1' }, query: 'source=a' }));
  assert.deepEqual([read.status, read.body.id], [200, 'p1']);
  const status = await call(routeOf(face, '/status'), fakeRequest());
  assert.equal(status.body.gateway_type, 'FHIRGateway');
  assert.deepEqual(status.body.connection_pool, { note: 'the synchronous FHIRGateway has no connection pool' });
});
