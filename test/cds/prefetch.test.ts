import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { CDSHooksService, type CDSHookRequest } from '../../src/cds/index.js';
import { post, recordingDispatcher, serveMountable } from './serve-mountable.js';

interface Seen {
  path: string;
  authorization: string | undefined;
}

/** A FHIR server stand-in that answers from a table of path → [status, body] and records requests. */
async function fakeFhir(t: TestContext, table: Record<string, [number, string]>): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    const [status, body] = table[req.url ?? ''] ?? [404, '{"resourceType":"OperationOutcome"}'];
    res.writeHead(status, { 'content-type': 'application/fhir+json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function serviceWith(prefetch: Record<string, string>, options = {}) {
  const calls: CDSHookRequest[] = [];
  const cds = new CDSHooksService({ dispatcher: recordingDispatcher(), ...options });
  cds.hook('patient-view', { id: 'svc', description: 'x', prefetch }, (req) => {
    calls.push(req);
    return { cards: [] };
  });
  return { cds, calls };
}

const AUTH = { access_token: 'ehr-token-1', token_type: 'Bearer', expires_in: 300, scope: 'patient/*.read', subject: 'svc' };
const body = (fhirServer: string | undefined, prefetch?: Record<string, unknown>, context: Record<string, unknown> = {}) => ({
  hook: 'patient-view',
  hookInstance: randomUUID(),
  context: { userId: 'Practitioner/doc', patientId: '123', ...context },
  ...(fhirServer === undefined ? {} : { fhirServer, fhirAuthorization: AUTH }),
  ...(prefetch === undefined ? {} : { prefetch }),
});

test('fetches only the missing keys from fhirServer with the bearer token; null stays null', async (t) => {
  const fhir = await fakeFhir(t, {
    '/r4/Patient/123': [200, '{"resourceType":"Patient","id":"123"}'],
    '/r4/Observation?patient=123&code=x': [200, '{"resourceType":"Bundle","type":"searchset","entry":[]}'],
  });
  const { cds, calls } = serviceWith({
    patient: 'Patient/{{context.patientId}}',
    obs: 'Observation?patient={{context.patientId}}&code=x',
    given: 'Condition?patient={{context.patientId}}',
    nothing: 'AllergyIntolerance?patient={{context.patientId}}',
    gone: 'Encounter/nope',
    noEncounter: 'Encounter/{{context.encounterId}}',
  });
  const { base } = await serveMountable(t, cds);
  const given = { resourceType: 'Bundle', type: 'searchset', total: 0 };
  const r = await post(`${base}/cds-services/svc`, body(`${fhir.url}/r4`, { given, nothing: null }));
  assert.equal(r.status, 200);
  assert.deepEqual(calls[0]?.prefetch, {
    given,
    nothing: null,
    patient: { resourceType: 'Patient', id: '123' },
    obs: { resourceType: 'Bundle', type: 'searchset', entry: [] },
    gone: null,
    noEncounter: null,
  });
  assert.deepEqual(fhir.seen.map((s) => s.path).sort(), ['/r4/Encounter/nope', '/r4/Observation?patient=123&code=x', '/r4/Patient/123']);
  assert.ok(fhir.seen.every((s) => s.authorization === 'Bearer ehr-token-1'));
});

test('data that cannot be obtained answers 412 naming the prefetch key', async (t) => {
  const fhir = await fakeFhir(t, {
    '/Patient/500': [500, '{}'],
    '/Patient/bad': [200, 'not json'],
    '/Patient/odd': [200, '{"id":"x"}'],
  });
  const cases: Array<[string, string | undefined, string, RegExp]> = [
    ['Patient/{{context.patientId}}', fhir.url, '500', /answered 500/],
    ['Patient/{{context.patientId}}', fhir.url, 'bad', /invalid JSON/],
    ['Patient/{{context.patientId}}', fhir.url, 'odd', /not answer with a resource/],
    ['Observation?patient={{context.patientId}}', fhir.url, '1', /answered 404/],
    ['Patient/{{context.patientId}}', undefined, '1', /no fhirServer/],
    ['Patient/{{context.patientId}}', 'http://ehr.example.org/fhir', '1', /must use https/],
  ];
  for (const [template, server, patientId, message] of cases) {
    const { cds, calls } = serviceWith({ key: template });
    const { base } = await serveMountable(t, cds);
    const r = await post(`${base}/cds-services/svc`, body(server, undefined, { patientId }));
    assert.equal(r.status, 412, `${template} ${patientId}`);
    assert.equal(r.body.error.code, 'ERR_CDS_PREFETCH');
    assert.equal(r.body.error.field, 'prefetch.key');
    assert.match(r.body.error.message, message);
    assert.doesNotMatch(r.body.error.message, /ehr-token-1/);
    assert.equal(calls.length, 0);
  }
});

test('a refused connection answers 412; http is allowed on localhost by name', async (t) => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const { cds } = serviceWith({ key: 'Patient/{{context.patientId}}' });
  const { base } = await serveMountable(t, cds);
  const refused = await post(`${base}/cds-services/svc`, body(`http://127.0.0.1:${port}`));
  assert.equal(refused.status, 412);
  assert.match(refused.body.error.message, /ERR_NETWORK/);

  const fhir = await fakeFhir(t, { '/Patient/123': [200, '{"resourceType":"Patient","id":"123"}'] });
  const local = fhir.url.replace('127.0.0.1', 'localhost');
  const byName = serviceWith({ key: 'Patient/{{context.patientId}}' });
  const served = await serveMountable(t, byName.cds);
  const r = await post(`${served.base}/cds-services/svc`, body(local));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(byName.calls[0]?.prefetch.key, { resourceType: 'Patient', id: '123' });
});

test('allowInsecureFhirServer lets plain http through to any host', async (t) => {
  const { cds } = serviceWith({ key: 'Patient/{{context.patientId}}' }, { allowInsecureFhirServer: true, prefetchTimeoutMs: 2000 });
  const { base } = await serveMountable(t, cds);
  // .invalid never resolves: the failure is now the network, not the scheme check.
  const r = await post(`${base}/cds-services/svc`, body('http://ehr.invalid/fhir'));
  assert.equal(r.status, 412);
  assert.doesNotMatch(r.body.error.message, /https/);
});
