import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FHIRHTTPError } from '../../../src/errors.js';
import { gatewayMountable } from '../../../src/gateway/http-face/mountable.js';
import type { Bundle } from '../../../src/fhir/index.js';
import { fakeRequest } from '../../support/route-request.js';
import { call, makeFacts, routeOf } from './fixtures.js';

const PATH = '/aggregate/:type';

function setup() {
  const probe = makeFacts();
  const route = routeOf(gatewayMountable(probe.facts), PATH);
  const calls: Array<[string, string[] | undefined]> = [];
  probe.registry.aggregate('Observation', async (patientId, sources) => {
    calls.push([patientId, sources]);
    return {
      resourceType: 'Bundle',
      type: 'searchset',
      total: 1,
      entry: [{ resource: { resourceType: 'Observation', id: 'o1', status: 'final', code: {} }, search: { mode: 'match' } }],
    };
  });
  return { ...probe, route, calls };
}

test('serves an aggregate handler: 200 Bundle, patient id and repeated sources passed, one event', async () => {
  const { route, calls, events } = setup();
  const reply = await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'patient_id=123&sources=epic&sources=cerner' }));
  assert.equal(reply.status, 200);
  assert.match(reply.contentType ?? '', /^application\/fhir\+json/);
  assert.equal(reply.body.resourceType, 'Bundle');
  assert.equal(reply.body.entry[0].resource.id, 'o1');
  assert.deepEqual(calls, [['123', ['epic', 'cerner']]]);
  assert.deepEqual(events, [
    ['fhir.observation.aggregate', { resource_type: 'Observation', patient_id: '123', sources: 'epic,cerner', operation: 'aggregate' }],
  ]);
});

test('accepts comma-separated sources, drops blanks and repeats, and passes undefined when none', async () => {
  const { route, calls, events } = setup();
  await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'patient_id=1&sources=epic,%20cerner,&sources=epic' }));
  await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'patient_id=2' }));
  await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'patient_id=3&sources=' }));
  assert.deepEqual(calls, [
    ['1', ['epic', 'cerner']],
    ['2', undefined],
    ['3', undefined],
  ]);
  assert.equal(events[1]?.[1]['sources'], null);
});

test('accepts id in place of patient_id (HealthChain); patient_id wins when both are given', async () => {
  const { route, calls } = setup();
  assert.equal((await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'id=abc' }))).status, 200);
  assert.equal((await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'id=abc&patient_id=def' }))).status, 200);
  assert.deepEqual(calls.map((c) => c[0]), ['abc', 'def']);
});

test('a missing patient id is 400 required; an invalid one 400 value; the handler is not called', async () => {
  const { route, calls } = setup();
  const missing = await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'sources=epic' }));
  assert.equal(missing.status, 400);
  assert.equal(missing.body.resourceType, 'OperationOutcome');
  assert.equal(missing.body.issue[0].code, 'required');
  const empty = await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'patient_id=' }));
  assert.equal(empty.status, 400);
  const invalid = await call(route, fakeRequest({ params: { type: 'Observation' }, query: 'patient_id=a/b' }));
  assert.equal(invalid.status, 400);
  assert.equal(invalid.body.issue[0].code, 'value');
  assert.deepEqual(calls, []);
});

test('an unknown type or no aggregate handler is 404, before the patient id is looked at', async () => {
  const { route, registry } = setup();
  registry.transform('Patient', (id) => ({ resourceType: 'Patient', id }));
  assert.equal((await call(route, fakeRequest({ params: { type: 'Nope' } }))).status, 404);
  const reply = await call(route, fakeRequest({ params: { type: 'Patient' }, query: 'patient_id=1' }));
  assert.equal(reply.status, 404);
  assert.match(reply.body.issue[0].diagnostics, /no aggregate handler is registered for Patient/);
});

test('a result that is not a Bundle is a 500 handler bug', async () => {
  const { route, registry, events } = setup();
  registry.aggregate('Condition', () => ({ resourceType: 'Condition' }) as unknown as Bundle);
  registry.aggregate('Encounter', () => [] as unknown as Bundle);
  for (const type of ['Condition', 'Encounter']) {
    const req = fakeRequest({ params: { type }, query: 'patient_id=1' });
    const logs = req.log.lines;
    const reply = await call(route, req);
    assert.equal(reply.status, 500);
    assert.match(reply.body.issue[0].diagnostics, /did not return a Bundle resource/);
    assert.equal(logs[0]?.level, 'error');
  }
  assert.deepEqual(events, []);
});

test('a sync aggregate handler is served, and registering later is served too', async () => {
  const { route, registry } = setup();
  const req = () => fakeRequest({ params: { type: 'MedicationRequest' }, query: 'patient_id=1' });
  assert.equal((await call(route, req())).status, 404);
  registry.aggregate('MedicationRequest', () => ({ resourceType: 'Bundle', type: 'searchset', total: 0 }));
  const reply = await call(route, req());
  assert.equal(reply.status, 200);
  assert.equal(reply.body.total, 0);
});

test('an upstream failure in an aggregate handler maps like a transform one; unknown named source is 400', async () => {
  const { route, registry } = setup();
  registry.aggregate('Condition', async () => {
    throw new FHIRHTTPError('search failed: 503', { status: 503 });
  });
  const reply = await call(route, fakeRequest({ params: { type: 'Condition' }, query: 'patient_id=1' }));
  assert.equal(reply.status, 502);
  registry.aggregate('Encounter', () => {
    throw Object.assign(new Error('unknown source "zz"'), { code: 'ERR_UNKNOWN_SOURCE' });
  });
  const named = await call(route, fakeRequest({ params: { type: 'Encounter' }, query: 'patient_id=1&sources=zz' }));
  assert.equal(named.status, 400);
});
