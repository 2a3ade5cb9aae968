import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalEventDispatcher, localHandler } from '../../../src/events/index.js';
import type { EventPair } from '../../../src/events/index.js';
import type { Patient } from '../../../src/fhir/index.js';
import { FHIRGateway } from '../../../src/gateway/sync-gateway.js';
import { MOUNT } from '../../../src/mount/index.js';
import { fakeRequest } from '../../support/route-request.js';
import { startRemoteSandbox } from '../../support/sync-gateway-helpers.js';
import { withoutTraceId } from '../../support/trace-ids.js';

function gateway(t: { after(fn: () => void): void }, options?: ConstructorParameters<typeof FHIRGateway>[0]): FHIRGateway {
  const gw = new FHIRGateway(options);
  t.after(() => gw.close());
  return gw;
}

test('every operation returns values, not Promises, on two sources', async (t) => {
  const [a, b] = await Promise.all([startRemoteSandbox(t, { seed: 'a' }), startRemoteSandbox(t, { seed: 'b' })]);
  const gw = gateway(t, { events: false });
  gw.addSource('a', await a.connectionString());
  gw.addSource('b', await b.connectionString());
  assert.deepEqual(gw.sourceNames, ['a', 'b']);
  assert.equal(gw.sourceBaseUrl('b'), b.fhirBase);
  assert.equal(gw.sourceBaseUrl(), a.fhirBase);

  const bundle = gw.search('Patient', { _count: 2 }, 'b');
  assert.equal(bundle.resourceType, 'Bundle');
  assert.equal(bundle.type, 'searchset');
  assert.equal(bundle.entry?.length, 2);
  const seeded = bundle.entry![0]!.resource as Patient;
  assert.match(seeded.id!, /^b-/);

  const created = gw.create<Patient>({ resourceType: 'Patient', name: [{ family: 'Sync' }] }); // first source
  assert.ok(!(created instanceof Promise));
  assert.equal(created.resourceType, 'Patient');
  assert.equal(typeof created.id, 'string');
  assert.equal(created.name?.[0]?.family, 'Sync');

  const read = gw.read('Patient', created.id!, 'a');
  assert.equal(read.id, created.id);
  assert.equal(read.name?.[0]?.family, 'Sync');
  assert.throws(() => gw.read('Patient', created.id!, 'b'), { code: 'ERR_FHIR_HTTP', status: 404 });

  const updated = gw.update({ ...read, active: true }, 'a');
  assert.equal(updated.active, true);
  assert.equal(gw.read('Patient', created.id!).active, true);
  assert.notEqual(updated.meta?.versionId, read.meta?.versionId);

  const found = gw.search('Patient', { family: 'Sync' }, 'a');
  assert.deepEqual(found.entry?.map((e) => e.resource?.id), [created.id]);

  assert.equal(gw.delete('Patient', created.id!, 'a'), true);
  assert.throws(() => gw.read('Patient', created.id!, 'a'), { code: 'ERR_FHIR_HTTP' });
  assert.equal(gw.delete('Patient', 'never-there', 'a'), false);

  const stats = await a.stats();
  assert.deepEqual(
    { create: stats.requests.byKind.create, update: stats.requests.byKind.update, delete: stats.requests.byKind.delete },
    { create: 1, update: 1, delete: 2 },
  );
});

test('many calls use one token request and one socket', async (t) => {
  const sb = await startRemoteSandbox(t);
  const gw = gateway(t, { events: false });
  gw.addSource('sb', await sb.connectionString());
  const id = (gw.search('Patient', { _count: 1 }).entry![0]!.resource as Patient).id!;
  for (let i = 0; i < 50; i++) assert.equal(gw.read('Patient', id).id, id);
  const stats = await sb.stats();
  assert.equal(stats.requests.byKind.read, 50);
  assert.equal(stats.tokenRequests, 1);
  assert.equal(stats.socketsAccepted, 1);
});

test('events travel back and are emitted on the calling thread through the dispatcher', async (t) => {
  const sb = await startRemoteSandbox(t);
  const dispatcher = new LocalEventDispatcher();
  const seen: EventPair[] = [];
  dispatcher.register('fhir.*', (event) => void seen.push(event));
  const gw = gateway(t, { dispatcher });
  gw.addSource('sb', await sb.connectionString());
  const bundle = gw.search('Patient', { _count: 2 });
  const id = bundle.entry![0]!.resource!.id!;
  gw.read('Patient', id);
  await dispatcher.drain();
  assert.notEqual(seen[0]?.[1].trace_id, seen[1]?.[1].trace_id, 'each call outside a request is a trace of its own');
  assert.deepEqual(seen.map(([name, payload]) => [name, withoutTraceId(payload)]), [
    ['fhir.patient.search', { resource_type: 'Patient', resource_id: undefined, source: 'sb', operation: 'search', result_count: 2 }],
    ['fhir.patient.read', { resource_type: 'Patient', resource_id: id, source: 'sb', operation: 'read' }],
  ]);
  // A failed call emits nothing; useEvents(null) silences the gateway.
  assert.throws(() => gw.read('Patient', 'missing'));
  gw.useEvents(null);
  gw.read('Patient', id);
  await dispatcher.drain();
  assert.equal(seen.length, 2);
  assert.throws(() => gw.useEvents({} as LocalEventDispatcher), TypeError);
});

test('the default dispatcher is localHandler; events: false turns events off', async (t) => {
  const sb = await startRemoteSandbox(t);
  const cs = await sb.connectionString();
  const ids: unknown[] = [];
  const unregister = localHandler.register('fhir.patient.read', ([, payload]) => void ids.push(payload.resource_id));
  t.after(unregister);
  const quiet = gateway(t, { events: false });
  quiet.addSource('sb', cs);
  const id = quiet.search('Patient', { _count: 1 }).entry![0]!.resource!.id!;
  quiet.read('Patient', id);
  quiet.useEvents(new LocalEventDispatcher()); // stays silent
  quiet.read('Patient', id);
  const loud = gateway(t);
  loud.addSource('sb', cs);
  loud.read('Patient', id);
  await localHandler.drain();
  assert.deepEqual(ids, [id]);
});

test('transform and aggregate register handlers that the mounted face serves', async (t) => {
  const sb = await startRemoteSandbox(t);
  const gw = gateway(t, { events: false });
  gw.addSource('sb', await sb.connectionString());
  const id = gw.search('Patient', { _count: 1 }).entry![0]!.resource!.id!;
  const handler = (pid: string, source?: string): Patient => ({ ...gw.read('Patient', pid, source), active: false });
  assert.equal(gw.transform('Patient', handler), handler);
  const wrapped = gw.aggregate('Observation')((patientId: string) => gw.search('Observation', { patient: patientId }));
  assert.equal(typeof wrapped, 'function');

  const face = gw[MOUNT]();
  assert.equal(face.kind, 'gateway');
  assert.deepEqual(face.status(), { status: 'active', sources: ['sb'], connection_pool: { note: 'the synchronous FHIRGateway has no connection pool' } });
  const route = face.routes().find((r) => r.path.startsWith('/transform'))!;
  const reply = await route.handle(fakeRequest({ baseUrl: 'http://127.0.0.1/fhir', params: { type: 'Patient', id } }));
  assert.equal(reply.status ?? 200, 200);
  const body = JSON.parse(String(reply.body)) as Patient;
  assert.deepEqual([body.id, body.active], [id, false]);
  const agg = face.routes().find((r) => r.path.startsWith('/aggregate'))!;
  const aggReply = await agg.handle(fakeRequest({ baseUrl: 'http://127.0.0.1/fhir', params: { type: 'Observation' }, query: `patient_id=${id}` }));
  assert.equal(JSON.parse(String(aggReply.body)).type, 'searchset');
  await face.close();
  assert.throws(() => gw.read('Patient', id), { code: 'ERR_CLOSED' });
});
