// A compartment-bound caller's writes (issue 34 items 8 and 9): the pre-read before an update or delete
// fails closed (a fault server answers it 403, 500, 410, garbage, another resource, or drops it, and the
// write is never sent), and every patient reference a write holds must be the caller's patient.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { facadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';
import { startServer } from '../support/test-server.js';

const KEY = 'pt1-key-0123456789abc';
const ADMIN = 'admin-key-0123456789';
const PT = { name: 'patient-1', apiKey: KEY, sources: ['up'], scopes: 'system/*.cruds', patient: 'p1' };

/** A FHIR server whose answer to the pre-read `GET Observation/o1` is `mode`; writes are answered as done. */
async function faultServer(t: TestContext, mode: string) {
  const up = await startServer(t, (req, res) => {
    if (req.method !== 'GET') {
      res.writeHead(req.method === 'DELETE' ? 204 : 201, { 'content-type': 'application/fhir+json' });
      res.end(req.method === 'DELETE' ? undefined : JSON.stringify({ resourceType: 'Observation', id: 'o1', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/p1' } }));
      return;
    }
    const own = { resourceType: 'Observation', id: 'o1', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/p1' } };
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify(body));
    };
    const oo = (code: string) => ({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code }] });
    if (mode === 'drop') req.socket.destroy();
    else if (mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/fhir+json' });
      res.end('{"resourceType":"Observ');
    } else if (mode === 'another') json(200, { resourceType: 'Patient', id: 'p1' });
    else if (mode === 'own') json(200, own);
    else json(Number(mode), oo(mode === '410' ? 'deleted' : mode === '404' ? 'not-found' : mode === '403' ? 'forbidden' : 'exception'));
  });
  const h = await facadeHarness(t, { up: `fhir://127.0.0.1:${new URL(up.url).port}/fhir/` }, { callers: [PT] }, [KEY]);
  const write = (method: 'PUT' | 'DELETE') =>
    fetch(`${h.prefix}/up/Observation/o1`, {
      method,
      headers: { 'x-api-key': KEY, ...(method === 'PUT' ? { 'content-type': 'application/fhir+json' } : {}) },
      ...(method === 'PUT' ? { body: JSON.stringify({ resourceType: 'Observation', id: 'o1', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/p1' } }) } : {}),
    });
  return { up, write };
}

test('a pre-read that proves nothing (403, 401, 429, 500, 410, garbage, another resource, a dropped socket) refuses the update and the delete: nothing is written', async (t) => {
  for (const mode of ['403', '401', '429', '500', '410', 'garbage', 'another', 'drop']) {
    const { up, write } = await faultServer(t, mode);
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await write(method);
      const body = (await res.json()) as { resourceType: string };
      assert.ok(res.status >= 400, `${mode}: ${method} answered ${res.status}`);
      assert.equal(body.resourceType, 'OperationOutcome');
      if (mode === '410') assert.equal(res.status, 404, 'a deleted id is "not known" to a compartment-bound caller');
    }
    const writes = up.seen.filter((s) => s.method !== 'GET');
    assert.deepEqual(writes.map((s) => `${s.method} ${s.url}`), [], `${mode}: no write was sent`);
    assert.ok(up.seen.some((s) => s.method === 'GET' && s.url === '/fhir/Observation/o1'), `${mode}: the pre-read was made`);
  }
});

test('a pre-read that proves the target is the caller\'s lets the write go; one that proves it absent lets a create-by-PUT go, never a delete', async (t) => {
  const own = await faultServer(t, 'own');
  assert.equal((await own.write('PUT')).status, 201);
  assert.equal((await own.write('DELETE')).status, 204);
  assert.deepEqual(own.up.seen.filter((s) => s.method !== 'GET').map((s) => s.method), ['PUT', 'DELETE']);
  const absent = await faultServer(t, '404');
  assert.equal((await absent.write('PUT')).status, 201, 'create-by-PUT of content in the compartment');
  assert.equal((await absent.write('DELETE')).status, 404, 'nothing to delete: not known, and nothing sent');
  assert.deepEqual(absent.up.seen.filter((s) => s.method !== 'GET').map((s) => s.method), ['PUT']);
});

async function sandboxFacade(t: TestContext) {
  const ehr = await sandbox(t, { open: true });
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, {
    callers: [
      { name: 'admin', apiKey: ADMIN, sources: '*', scopes: 'system/*.cruds' },
      { ...PT, sources: ['ehr'], patient: 'a-patient-1' },
    ],
  }, [KEY, ADMIN]);
  const call = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${h.prefix}/ehr/${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/fhir+json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { ehr, call };
}

test('a PUT over another patient\'s deleted id is refused (404) and not sent', async (t) => {
  const { ehr, call } = await sandboxFacade(t);
  assert.equal((await call(ADMIN, 'DELETE', 'Observation/a-patient-2-obs-1-1')).status, 204);
  const before = ehr.stats.requests.byMethod.PUT ?? 0;
  const mine = { resourceType: 'Observation', id: 'a-patient-2-obs-1-1', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/a-patient-1' } };
  const res = await call(KEY, 'PUT', 'Observation/a-patient-2-obs-1-1', mine);
  assert.equal(res.status, 404);
  assert.equal(ehr.stats.requests.byMethod.PUT ?? 0, before, 'the PUT never went upstream');
  assert.equal((await call(ADMIN, 'GET', 'Observation/a-patient-2-obs-1-1')).status, 410, 'still deleted');
});

test('every patient reference of a write must be the caller\'s patient: another patient in any compartment element is 403 with nothing sent', async (t) => {
  const { ehr, call } = await sandboxFacade(t);
  const obs = (rest: Record<string, unknown>) => ({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, ...rest });
  const refused: [string, Record<string, unknown>][] = [
    ['subject another patient, performer the caller', obs({ subject: { reference: 'Patient/a-patient-2' }, performer: [{ reference: 'Patient/a-patient-1' }] })],
    ['subject the caller, performer another patient', obs({ subject: { reference: 'Patient/a-patient-1' }, performer: [{ reference: 'Patient/a-patient-2' }] })],
    ['a Patient on another server', obs({ subject: { reference: 'Patient/a-patient-1' }, performer: [{ reference: 'https://elsewhere.example/fhir/Patient/a-patient-1' }] })],
    ['a logical reference by identifier', obs({ subject: { reference: 'Patient/a-patient-1' }, performer: [{ identifier: { system: 'urn:mrn', value: '2' } }] })],
    ['a contained Patient', obs({ subject: { reference: 'Patient/a-patient-1' }, performer: [{ reference: '#p' }], contained: [{ resourceType: 'Patient', id: 'p' }] })],
    ['a urn:uuid', obs({ subject: { reference: 'Patient/a-patient-1' }, performer: [{ reference: 'urn:uuid:6f0d2a4e-1b7c-4b8e-9a51-2a3b4c5d6e7f' }] })],
  ];
  const posts = () => ehr.stats.requests.byMethod.POST ?? 0;
  for (const [what, resource] of refused) {
    const before = posts();
    const res = await call(KEY, 'POST', 'Observation', resource);
    assert.equal(res.status, 403, what);
    assert.match(((await res.json()) as any).issue[0].diagnostics, /patient reference/, what);
    assert.equal(posts(), before, `${what}: nothing sent`);
  }
  const put = await call(KEY, 'PUT', 'Observation/a-patient-1-obs-1-1', obs({ id: 'a-patient-1-obs-1-1', subject: { reference: 'Patient/a-patient-1' }, performer: [{ reference: 'Patient/a-patient-2' }] }));
  assert.equal(put.status, 403, 'an update too');
  const fine = obs({ subject: { reference: 'Patient/a-patient-1' }, performer: [{ reference: 'Practitioner/dr-1' }, { reference: 'Patient/a-patient-1' }, { display: 'the nurse' }] });
  assert.equal((await call(KEY, 'POST', 'Observation', fine)).status, 201, 'other types and display-only references are no patient');
  const batch = { resourceType: 'Bundle', type: 'batch', entry: [{ request: { method: 'POST', url: 'Observation' }, resource: refused[0]![1] }] };
  const before = posts();
  assert.equal((await call(KEY, 'POST', '', batch)).status, 403, 'bundles stay refused to a compartment-bound caller');
  assert.equal(posts(), before);
});

test('a resource the caller sees through one reference but that names another patient is read, never written', async (t) => {
  const { ehr, call } = await sandboxFacade(t);
  const shared = { resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/a-patient-2' }, performer: [{ reference: 'Patient/a-patient-1' }] };
  const created = (await (await call(ADMIN, 'POST', 'Observation', shared)).json()) as { id: string };
  assert.equal((await call(KEY, 'GET', `Observation/${created.id}`)).status, 200, 'in its compartment (performer): readable');
  const deletes = ehr.stats.requests.byMethod.DELETE ?? 0;
  assert.equal((await call(KEY, 'DELETE', `Observation/${created.id}`)).status, 403);
  assert.equal(ehr.stats.requests.byMethod.DELETE ?? 0, deletes, 'the delete was not sent');
  assert.equal((await call(KEY, 'PUT', `Observation/${created.id}`, { ...shared, id: created.id, subject: { reference: 'Patient/a-patient-1' } })).status, 403, 'nor moved into its own record');
  assert.equal(((await (await call(ADMIN, 'GET', `Observation/${created.id}`)).json()) as any).subject.reference, 'Patient/a-patient-2');
});
