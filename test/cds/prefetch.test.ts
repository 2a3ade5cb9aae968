import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { CDSHooksService, type CDSHookRequest } from '../../src/cds/index.js';
import { FHIRServerAllowlist } from '../../src/cds/fhir-server-allowlist.js';
import { recordingDispatcher } from '../support/recording-dispatcher.js';
import { freePort } from '../support/free-port.js';
import { serve } from '../support/serve.js';
import { post } from './post-json.js';

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
  }, { fhirServers: [fhir.url] }); // loopback: allowed only by naming it
  const { baseUrl: base } = await serve(t, cds);
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
    const { cds, calls } = serviceWith({ key: template }, { fhirServers: [fhir.url] });
    const { baseUrl: base } = await serve(t, cds);
    const r = await post(`${base}/cds-services/svc`, body(server, undefined, { patientId }));
    assert.equal(r.status, 412, `${template} ${patientId}`);
    assert.equal(r.body.error.code, 'ERR_CDS_PREFETCH');
    assert.equal(r.body.error.field, 'prefetch.key');
    assert.match(r.body.error.message, message);
    assert.doesNotMatch(r.body.error.message, /ehr-token-1/);
    assert.equal(calls.length, 0);
  }
});

test('a refused connection answers 412; http is allowed on localhost by name (both named in fhirServers)', async (t) => {
  const port = await freePort();
  const { cds } = serviceWith({ key: 'Patient/{{context.patientId}}' }, { fhirServers: [`http://127.0.0.1:${port}`] });
  const { baseUrl: base } = await serve(t, cds);
  const refused = await post(`${base}/cds-services/svc`, body(`http://127.0.0.1:${port}`));
  assert.equal(refused.status, 412);
  assert.match(refused.body.error.message, /could not be reached/);

  const fhir = await fakeFhir(t, { '/Patient/123': [200, '{"resourceType":"Patient","id":"123"}'] });
  const local = fhir.url.replace('127.0.0.1', 'localhost');
  const byName = serviceWith({ key: 'Patient/{{context.patientId}}' }, { fhirServers: [local] });
  const served = await serve(t, byName.cds);
  const r = await post(`${served.baseUrl}/cds-services/svc`, body(local));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(byName.calls[0]?.prefetch.key, { resourceType: 'Patient', id: '123' });
});

test('allowInsecureFhirServer lets plain http through to any host', async (t) => {
  const { cds } = serviceWith({ key: 'Patient/{{context.patientId}}' }, { allowInsecureFhirServer: true, prefetchTimeoutMs: 2000 });
  const { baseUrl: base } = await serve(t, cds);
  // .invalid never resolves: the failure is now the network, not the scheme check.
  const r = await post(`${base}/cds-services/svc`, body('http://ehr.invalid/fhir'));
  assert.equal(r.status, 412);
  assert.doesNotMatch(r.body.error.message, /https/);
});

test('with fhirServers, only URLs under an allowed base are fetched; any other fhirServer is a 412 naming fhirServer', async (t) => {
  const fhir = await fakeFhir(t, {
    '/r4/Patient/123': [200, '{"resourceType":"Patient","id":"123"}'],
    '/r4/sub/Patient/123': [200, '{"resourceType":"Patient","id":"123"}'],
  });
  const { cds, calls } = serviceWith({ key: 'Patient/{{context.patientId}}' }, { fhirServers: [`${fhir.url}/r4`] });
  const served = await serve(t, cds);
  for (const server of [`${fhir.url}/r4`, `${fhir.url}/r4/`, `${fhir.url}/r4/sub`]) {
    const r = await post(`${served.baseUrl}/cds-services/svc`, body(server));
    assert.equal(r.status, 200, `${server}: ${JSON.stringify(r.body)}`);
  }
  assert.deepEqual(fhir.seen.map((s) => s.path), ['/r4/Patient/123', '/r4/Patient/123', '/r4/sub/Patient/123']);
  const refused = [
    `${fhir.url}/other`, `${fhir.url}/r4x`, fhir.url, `${fhir.url}/r4/../other`, `${fhir.url}/r4?`,
    fhir.url.replace('127.0.0.1', 'localhost') + '/r4', 'https://ehr.example.org/r4',
  ];
  for (const server of refused) {
    const r = await post(`${served.baseUrl}/cds-services/svc`, body(server));
    assert.equal(r.status, 412, server);
    assert.equal(r.body.error.code, 'ERR_CDS_PREFETCH');
    assert.equal(r.body.error.field, 'fhirServer');
    assert.match(r.body.error.message, /fhirServer is not an allowed FHIR server/);
    const last = served.logs.at(-1);
    assert.equal(last?.level, 'warn');
    assert.equal(last?.fields?.prefetch_key, 'key');
  }
  assert.equal(fhir.seen.length, 3, 'no refused fhirServer was contacted');
  assert.equal(calls.length, 3);
  const sent = await post(`${served.baseUrl}/cds-services/svc`, body('https://ehr.example.org/r4', { key: null }));
  assert.equal(sent.status, 200, 'a fhirServer outside the list is fine when nothing has to be fetched');
});

test('an origin allows every path on it; a service list replaces the service-wide one', async (t) => {
  const fhir = await fakeFhir(t, {
    '/Patient/123': [200, '{"resourceType":"Patient","id":"123"}'],
    '/a/Patient/123': [200, '{"resourceType":"Patient","id":"123"}'],
  });
  const cds = new CDSHooksService({ dispatcher: recordingDispatcher(), fhirServers: ['https://ehr.example.org'] });
  const prefetch = { key: 'Patient/{{context.patientId}}' };
  cds.hook('patient-view', { id: 'own', description: 'x', prefetch, fhirServers: [`${fhir.url}/`] }, () => ({ cards: [] }));
  cds.hook('patient-view', { id: 'wide', description: 'x', prefetch }, () => ({ cards: [] }));
  const { baseUrl: base } = await serve(t, cds);
  assert.equal((await post(`${base}/cds-services/own`, body(fhir.url))).status, 200);
  assert.equal((await post(`${base}/cds-services/own`, body(`${fhir.url}/a`))).status, 200);
  const wide = await post(`${base}/cds-services/wide`, body(fhir.url));
  assert.equal(wide.status, 412);
  assert.equal(wide.body.error.field, 'fhirServer');
  assert.deepEqual(fhir.seen.map((s) => s.path), ['/Patient/123', '/a/Patient/123']);
});

test('fhirServers entries are checked at construction and registration', () => {
  const bad: unknown[] = [
    'https://ehr.example.org', [42], ['/fhir'], ['ftp://ehr.example.org/fhir'], ['https://user:pw@ehr.example.org/fhir'],
    ['https://ehr.example.org/fhir#'], ['https://ehr.example.org/fhir?x=1'], ['not a url'],
  ];
  for (const fhirServers of bad) {
    assert.throws(() => new CDSHooksService({ fhirServers: fhirServers as string[] }), { name: 'TypeError', message: /^fhirServers/ }, String(fhirServers));
  }
  const cds = new CDSHooksService({ fhirServers: ['https://ehr.example.org:443/FHIR', 'http://127.0.0.1:8080'] });
  assert.throws(() => cds.hook('patient-view', { id: 'x', description: 'x', fhirServers: ['mailto:a@b'] }, () => ({ cards: [] })), {
    name: 'TypeError', message: /^definition\.fhirServers\[0\]/,
  });
});

test('an allowlist entry matches by origin and by path prefix on segment boundaries', () => {
  const allowed = FHIRServerAllowlist.from(['https://EHR.example.org:443/fhir', 'http://127.0.0.1:8080'], 'fhirServers')!;
  const yes = ['https://ehr.example.org/fhir', 'https://ehr.example.org/fhir/', 'https://ehr.example.org/fhir/r4/Patient/1?x=1', 'http://127.0.0.1:8080/any/thing'];
  const no = ['https://ehr.example.org/fhirx', 'https://ehr.example.org/other/fhir', 'https://ehr.example.org/FHIR', 'http://ehr.example.org/fhir', 'https://ehr.example.org:8443/fhir', 'http://127.0.0.1:8081/', 'https://127.0.0.1:8080/'];
  for (const url of yes) assert.equal(allowed.allows(new URL(url)), true, url);
  for (const url of no) assert.equal(allowed.allows(new URL(url)), false, url);
  assert.equal(FHIRServerAllowlist.from(undefined, 'fhirServers'), undefined);
  assert.equal(FHIRServerAllowlist.from([], 'fhirServers')?.allows(new URL('https://ehr.example.org/')), false, 'an empty list allows nothing');
});
