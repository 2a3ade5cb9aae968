import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FHIRHTTPError } from '../../src/errors.js';
import type { Bundle, Patient } from '../../src/fhir/index.js';
import { LocalEventDispatcher } from '../../src/events/index.js';
import type { EventPair } from '../../src/events/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { startServer } from '../support/test-server.js';
import { sandbox } from '../support/sandbox.js';
import { gateway, settle } from '../support/gateway-fixtures.js';
import { withoutTraceId } from '../support/trace-ids.js';

test('every operation on two sources at once', async (t) => {
  const [a, b] = await Promise.all([sandbox(t, { seed: 'a' }), sandbox(t, { seed: 'b' })]);
  const { gw, events } = gateway(t);
  gw.addSource('a', a.connectionString());
  gw.addSource('b', b.connectionString());
  assert.deepEqual(gw.sourceNames, ['a', 'b']);
  assert.equal(gw.sourceBaseUrl('b'), b.fhirBase);
  assert.equal(gw.sourceBaseUrl(), a.fhirBase);

  const run = async (name: 'a' | 'b'): Promise<void> => {
    const seeded: Patient = await gw.read('Patient', `${name}-patient-1`, name);
    assert.equal(seeded.resourceType, 'Patient');
    assert.equal(seeded.id, `${name}-patient-1`);

    const created = await gw.create({ resourceType: 'Patient', name: [{ family: `Doe-${name}` }] } as Patient, name);
    assert.ok(created.id);
    assert.equal(created.name?.[0]?.family, `Doe-${name}`);

    const updated = await gw.update({ ...created, active: true }, name);
    assert.equal(updated.active, true);
    assert.notEqual(updated.meta?.versionId, created.meta?.versionId);

    const found: Bundle<Patient> = await gw.search('Patient', { family: `Doe-${name}`, _count: 10 }, name);
    assert.equal(found.resourceType, 'Bundle');
    assert.equal(found.type, 'searchset');
    assert.deepEqual(found.entry?.map((e) => e.resource?.id), [created.id]);

    const modified = await gw.modify('Patient', created.id as string, name, (p) => {
      p.gender = 'female';
    });
    assert.equal(modified.gender, 'female');
    assert.equal((await gw.read('Patient', created.id as string, name)).gender, 'female');

    assert.equal(await gw.delete('Patient', created.id as string, name), true);
    await assert.rejects(gw.read('Patient', created.id as string, name), { code: 'ERR_FHIR_HTTP', status: 410 });
    assert.equal(await gw.delete('Patient', 'never-existed', name), false);
  };
  await Promise.all([run('a'), run('b')]);
  assert.ok(a.stats.requests.total > 8 && b.stats.requests.total > 8);

  await settle();
  const names = events.map(([n]) => n);
  for (const op of ['read', 'create', 'update', 'search', 'delete']) assert.ok(names.includes(`fhir.patient.${op}`), op);
  const search = events.find(([n, p]) => n === 'fhir.patient.search' && p.source === 'b');
  assert.deepEqual(withoutTraceId(search?.[1]), { resource_type: 'Patient', resource_id: undefined, source: 'b', operation: 'search', result_count: 1 });
  const read = events.find(([n, p]) => n === 'fhir.patient.read' && p.source === 'a');
  assert.deepEqual(withoutTraceId(read?.[1]), { resource_type: 'Patient', resource_id: 'a-patient-1', source: 'a', operation: 'read' });
  assert.ok(!JSON.stringify(events).includes('Doe-'), 'events never carry search values or resource bodies');
  assert.equal(events.filter(([n]) => n === 'fhir.patient.delete').length, 2, 'a delete of nothing sends no event');
});

test('the first source is the default; unknown and missing sources are clear errors', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  await assert.rejects(gw.read('Patient', 'a-patient-1'), { code: 'ERR_NO_SOURCES', message: /addSource/ });
  gw.addSource('first', s.connectionString());
  gw.addSource('second', 'fhir://127.0.0.1:1/');
  assert.equal((await gw.read('Patient', 'a-patient-1')).id, 'a-patient-1');
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'thrid'), { code: 'ERR_UNKNOWN_SOURCE', message: /"thrid"; registered: first, second/ });
});

test('types, ids and resources are checked before any request', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  const before = s.stats.requests.total;
  await assert.rejects(gw.read('Patient/../../admin' as 'Patient', '1'), { code: 'ERR_INVALID_RESOURCE_TYPE' });
  await assert.rejects(gw.read('Patient', '../Observation/1'), { code: 'ERR_INVALID_ID' });
  await assert.rejects(gw.read('Patient', 'x'.repeat(65)), { code: 'ERR_INVALID_ID' });
  await assert.rejects(gw.delete('Patient', '1?_x=y'), { code: 'ERR_INVALID_ID' });
  await assert.rejects(gw.search('Nope' as 'Patient', {}), { code: 'ERR_INVALID_RESOURCE_TYPE' });
  await assert.rejects(gw.search('Patient', { name: {} as unknown as string }), { code: 'ERR_INVALID_SEARCH' });
  await assert.rejects(gw.search('Patient', { _count: NaN }), { code: 'ERR_INVALID_SEARCH' });
  await assert.rejects(gw.search('Patient', [] as never), { code: 'ERR_INVALID_SEARCH' });
  await assert.rejects(gw.search('Patient', { '': 'x' }), { code: 'ERR_INVALID_SEARCH' });
  await assert.rejects(gw.update({ resourceType: 'Patient' }), { code: 'ERR_INVALID_RESOURCE', message: /no id/ });
  await assert.rejects(gw.update({ resourceType: 'Patient', id: 'a/b' }), { code: 'ERR_INVALID_ID' });
  await assert.rejects(gw.create({} as Patient), { code: 'ERR_INVALID_RESOURCE' });
  await assert.rejects(gw.create(null as unknown as Patient), { code: 'ERR_INVALID_RESOURCE' });
  await assert.rejects(gw.create({ resourceType: 'Pateint' } as unknown as Patient), { code: 'ERR_INVALID_RESOURCE_TYPE' });
  assert.throws(() => gw.read('Patient', '1', undefined, { signal: 'x' as unknown as AbortSignal }), TypeError);
  assert.throws(() => gw.read('Patient', '1', undefined, 5 as never), TypeError);
  assert.equal(s.stats.requests.total, before);
});

test('search values: numbers, booleans, repeated parameters, percent-encoding', async (t) => {
  const srv = await startServer(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', entry: [{ search: { mode: 'match' } }, { search: { mode: 'include' } }, {}] }));
  });
  const { gw, events } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/r4/`);
  await gw.search('Observation', { date: ['ge2020', 'le2021'], _count: 5, active: false, 'code:text': 'a&b c+d' });
  assert.equal(srv.seen[0]?.url, '/r4/Observation?date=ge2020&date=le2021&_count=5&active=false&code%3Atext=a%26b%20c%2Bd');
  assert.equal(srv.seen[0]?.headers.accept, 'application/fhir+json');
  assert.equal(srv.seen[0]?.headers['content-type'], undefined);
  assert.equal(srv.seen[0]?.headers.authorization, undefined);
  assert.equal(events[0]?.[1].result_count, 2);
});

test('a non-2xx answer is ERR_FHIR_HTTP with status, operation, reference and OperationOutcome', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  const err = await gw.read('Patient', 'nope').then(() => assert.fail('expected a rejection'), (e: unknown) => e);
  assert.ok(err instanceof FHIRHTTPError);
  assert.equal(err.code, 'ERR_FHIR_HTTP');
  assert.equal(err.status, 404);
  assert.equal(err.operation, 'read');
  assert.equal(err.reference, 'Patient/nope');
  assert.match(err.message, /^read Patient\/nope failed: 404 Not Found: .*Patient\/nope/);
  assert.equal((err.operationOutcome as { resourceType?: string }).resourceType, 'OperationOutcome');
  s.faults.failNext(1, 503, { body: 'down' });
  await assert.rejects(gw.search('Patient', {}, undefined, { retry: false }), { code: 'ERR_FHIR_HTTP', status: 503, message: 'search Patient failed: 503 Service Unavailable', operationOutcome: undefined });
  assert.equal(gw.getPoolStatus().sources.s?.errors, 2);
});

test('invalid JSON or a wrong resource in a 2xx answer is ERR_FHIR_RESPONSE', async (t) => {
  const bodies = ['not json', '{"resourceType":"Observation","id":"1"}', '[]', '{"resourceType":"Patient"}'];
  const srv = await startServer(t, (_req, res) => res.end(bodies.shift() ?? ''));
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/`);
  await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_FHIR_RESPONSE', message: /not JSON/ });
  await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_FHIR_RESPONSE', message: /expected a Patient, the server sent a Observation/ });
  await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_FHIR_RESPONSE', message: /not a resource/ });
  await assert.rejects(gw.search('Patient'), { code: 'ERR_FHIR_RESPONSE', message: /expected a Bundle/ });
});

test('create reads the Location when the body is empty, and never follows one to another origin', async (t) => {
  const other = await startServer(t, (_req, res) => res.end('{}'));
  let location = '';
  const srv = await startServer(t, (req, res) => {
    if (req.method === 'POST') {
      res.writeHead(201, { location });
      res.end();
    } else res.end(JSON.stringify({ resourceType: 'Patient', id: 'new-1', meta: { versionId: '1' } }));
  });
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/r4`);
  location = `${srv.url}/r4/Patient/new-1/_history/1`;
  const created = await gw.create({ resourceType: 'Patient' } as Patient);
  assert.equal(created.id, 'new-1');
  assert.equal(srv.seen[0]?.headers.prefer, 'return=representation');
  assert.equal(srv.seen[0]?.headers['content-type'], 'application/fhir+json; charset=utf-8');
  assert.equal(srv.seen[1]?.url, '/r4/Patient/new-1/_history/1');
  location = `${other.url}/r4/Patient/new-1`;
  await assert.rejects(gw.create({ resourceType: 'Patient' } as Patient), { code: 'ERR_CROSS_ORIGIN' });
  assert.equal(other.seen.length, 0);
  location = '';
  srv.server.removeAllListeners('request');
  srv.server.on('request', (_req, res) => {
    res.writeHead(201);
    res.end();
  });
  await assert.rejects(gw.create({ resourceType: 'Patient' } as Patient), { code: 'ERR_FHIR_RESPONSE', message: /neither the resource nor a Location/ });
});

test('update reads the resource back when the server answers with an OperationOutcome or nothing', async (t) => {
  const answers = ['{"resourceType":"OperationOutcome","issue":[]}', '', 'not json'];
  const srv = await startServer(t, (req, res) => {
    if (req.method === 'PUT') res.end(answers.shift());
    else res.end(JSON.stringify({ resourceType: 'Patient', id: '7', meta: { versionId: '2' } }));
  });
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/r4`);
  assert.equal((await gw.update({ resourceType: 'Patient', id: '7' } as Patient)).meta?.versionId, '2');
  assert.equal((await gw.update({ resourceType: 'Patient', id: '7' } as Patient)).meta?.versionId, '2');
  await assert.rejects(gw.update({ resourceType: 'Patient', id: '7' }), { code: 'ERR_FHIR_RESPONSE' });
  assert.deepEqual(srv.seen.map((r) => `${r.method} ${r.url}`), ['PUT /r4/Patient/7', 'GET /r4/Patient/7', 'PUT /r4/Patient/7', 'GET /r4/Patient/7', 'PUT /r4/Patient/7']);
  assert.equal(srv.seen[0]?.headers.prefer, 'return=representation');
});

test('events: false and useEvents(null) turn events off; useEvents sets the dispatcher', async (t) => {
  const s = await sandbox(t);
  const off = gateway(t, { events: false });
  off.gw.addSource('s', s.connectionString());
  await off.gw.read('Patient', 'a-patient-1');
  const on = gateway(t);
  on.gw.addSource('s', s.connectionString());
  on.gw.useEvents(null);
  await on.gw.read('Patient', 'a-patient-1');
  const got: string[] = [];
  const mine = { emit: (name: string) => void got.push(name), register: () => () => {}, drain: async () => {} };
  on.gw.useEvents(mine);
  off.gw.useEvents(mine);
  await on.gw.read('Patient', 'a-patient-1');
  await off.gw.read('Patient', 'a-patient-1');
  await settle();
  assert.deepEqual([off.events.length, on.events.length], [0, 0]);
  assert.deepEqual(got, ['fhir.patient.read']);
  assert.throws(() => on.gw.useEvents({} as never), TypeError);
});

test('a local dispatcher gets the events it has handlers for, with their counts; an external one gets every event', async (t) => {
  const s = await sandbox(t);
  const local = new LocalEventDispatcher();
  const seen: EventPair[] = [];
  local.register('fhir.patient.search', (pair) => void seen.push(pair));
  local.register('fhir.patient.create', (pair) => void seen.push(pair));
  const gw = new AsyncFHIRGateway({ dispatcher: local });
  t.after(() => gw.close());
  gw.addSource('s', s.connectionString());
  await gw.read('Patient', 'a-patient-1');
  const created = await gw.create({ resourceType: 'Patient', identifier: [{ system: 'urn:events', value: '1' }] }, 's', { ifNoneExist: 'identifier=urn:events|1' });
  const found = await gw.search('Patient', { identifier: 'urn:events|1' });
  assert.equal(found.entry?.length, 1);
  assert.deepEqual(seen.map(([name, payload]) => [name, withoutTraceId(payload)]), [
    ['fhir.patient.create', { resource_type: 'Patient', resource_id: created.id, source: 's', operation: 'create', created: true }],
    ['fhir.patient.search', { resource_type: 'Patient', resource_id: undefined, source: 's', operation: 'search', result_count: 1 }],
  ]);
  const got: string[] = [];
  gw.useEvents({ emit: (name: string) => void got.push(name), register: () => () => {}, drain: async () => {} });
  await gw.read('Patient', 'a-patient-1');
  await gw.search('Patient', { identifier: 'urn:events|1' });
  assert.deepEqual(got, ['fhir.patient.read', 'fhir.patient.search']);
});

test('bad gateway options throw TypeError or RangeError naming the option', () => {
  assert.throws(() => new AsyncFHIRGateway({ maxConnections: -1 }), { name: 'RangeError', message: /maxConnections/ });
  assert.throws(() => new AsyncFHIRGateway({ timeoutSeconds: 0 }), { name: 'RangeError', message: /options\.timeoutSeconds/ });
  assert.throws(() => new AsyncFHIRGateway({ timeoutSeconds: 'x' as unknown as number }), { name: 'TypeError', message: /options\.timeoutSeconds/ });
  assert.throws(() => new AsyncFHIRGateway({ maxResponseBytes: -5 }), /maxResponseBytes/);
  assert.throws(() => new AsyncFHIRGateway({ events: 'no' as unknown as boolean }), /options\.events/);
  assert.throws(() => new AsyncFHIRGateway({ dispatcher: {} as never }), /options\.dispatcher/);
  assert.throws(() => new AsyncFHIRGateway(null as never), TypeError);
  const gw = new AsyncFHIRGateway();
  assert.throws(() => gw.addSource('', 'fhir://localhost/'), TypeError);
  assert.throws(() => gw.addSource('x', 'http://localhost/'), { code: 'ERR_CONNECTION_STRING' });
  assert.deepEqual(gw.sourceNames, []);
});
