import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bundle, Patient } from '../../src/fhir/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { MOUNT } from '../../src/mount/index.js';
import { fakeRequest } from '../support/route-request.js';
import { sandbox } from '../support/sandbox.js';
import { gateway, settle } from '../support/gateway-fixtures.js';

test('transform and aggregate register handlers, directly or as wrappers', () => {
  const gw = new AsyncFHIRGateway({ events: false });
  const handler = async (id: string): Promise<Patient> => ({ resourceType: 'Patient', id });
  assert.equal(gw.transform('Patient', handler), handler);
  const agg = (): Bundle => ({ resourceType: 'Bundle', type: 'searchset' });
  assert.equal(gw.aggregate('Observation')(agg), agg);
  assert.equal(gw.aggregate('Condition', agg), agg);
  const wrapped = gw.transform('Observation')(async (id: string) => ({ resourceType: 'Observation' as const, id, status: 'final' as const, code: {} }));
  assert.equal(typeof wrapped, 'function');
  assert.throws(() => gw.transform('Nope' as 'Patient', handler), { code: 'ERR_INVALID_RESOURCE_TYPE' });
  const face = gw[MOUNT]();
  const doc = face.openapi();
  const paths = JSON.stringify(doc);
  assert.ok(paths.includes('transform') && paths.includes('aggregate'));
});

test('the mounted face serves a transform and reports status without secrets', async (t) => {
  const s = await sandbox(t);
  const { gw, events } = gateway(t);
  gw.addSource('s', s.connectionString());
  gw.transform('Patient', async (id, source) => ({ ...(await gw.read('Patient', id, source)), active: true }));
  const face = gw[MOUNT]();
  assert.equal(face.kind, 'gateway');
  const route = face.routes().find((r) => r.path.startsWith('/transform'));
  assert.ok(route);
  const req = fakeRequest({
    baseUrl: 'http://127.0.0.1/fhir',
    path: '/transform/Patient/a-patient-1',
    query: 'source=s',
    params: { type: 'Patient', id: 'a-patient-1' },
    headers: {},
    requestId: 'r1',
  });
  const reply = await route.handle(req);
  assert.equal(reply.status ?? 200, 200);
  const body = JSON.parse(String(reply.body)) as Patient;
  assert.equal(body.id, 'a-patient-1');
  assert.equal(body.active, true);
  const status = JSON.stringify(face.status());
  assert.ok(status.includes('"s"') && !status.includes('demo-secret'));
  face.useEvents(null);
  await gw.read('Patient', 'a-patient-1');
  const count = events.length;
  await settle();
  assert.equal(events.length, count);
  await face.close();
  await assert.rejects(gw.read('Patient', 'a-patient-1'), { code: 'ERR_CLOSED' });
});
