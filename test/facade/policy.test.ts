// Callers held to a policy, denied by default: the matrix of source × type × interaction × compartment,
// for API-key callers and bearer-JWT callers (SMART v1 and v2 scopes), checked by what the caller gets
// and by what the upstream received.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import { FHIRFacade } from '../../src/facade/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { facadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';

const KEYS = { admin: 'admin-key-0123456789', reader: 'reader-key-0123456789', labOnly: 'lab-key-0123456789ab', patient1: 'pt1-key-0123456789abc' };
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ISSUER = 'https://idp.example.org';
const AUDIENCE = 'https://gw.example.org/fhir';
const jwk = { ...toPublicJWK(publicKey), kid: 'k1', alg: 'ES256' };

function jwt(claims: Record<string, unknown>, key = privateKey): string {
  const now = Math.floor(Date.now() / 1000);
  return signJWT({ alg: 'ES256', kid: 'k1' }, { iss: ISSUER, aud: AUDIENCE, sub: 'svc-1', client_id: 'svc-1', exp: now + 300, iat: now, jti: randomUUID(), ...claims }, key);
}

async function setUp(t: TestContext) {
  const ehr = await sandbox(t, { open: true });
  const lab = await sandbox(t, { open: true, seed: 'b' });
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), lab: lab.connectionString() }, {
    callers: [
      { name: 'admin', apiKey: KEYS.admin, sources: '*', scopes: 'system/*.cruds', operations: ['$everything'] },
      { name: 'reader', apiKey: KEYS.reader, sources: '*', scopes: 'system/Patient.rs system/Observation.read' },
      { name: 'lab-only', apiKey: KEYS.labOnly, sources: ['lab'], scopes: 'system/*.rs' },
      { name: 'patient-1', apiKey: KEYS.patient1, sources: ['ehr'], scopes: 'system/*.cruds', patient: 'a-patient-1' },
      { issuer: ISSUER, jwks: { keys: [jwk] }, audience: AUDIENCE, sources: '*', scopes: 'system/*.rs patient/*.cruds', patientSource: 'ehr' },
    ],
  }, Object.values(KEYS));
  const call = (key: string | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${h.prefix}/${path}`, {
      method,
      headers: { ...(key === undefined ? {} : key.split('.').length === 3 ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }), ...(body === undefined ? {} : { 'content-type': 'application/fhir+json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { ehr, lab, h, call };
}

test('without credentials, with a wrong key or a forged token: 401 and nothing upstream', async (t) => {
  const { ehr, call } = await setUp(t);
  const before = ehr.stats.requests.total;
  for (const key of [undefined, 'wrong-key-0123456789', jwt({}, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)]) {
    const res = await call(key, 'GET', 'ehr/Patient/a-patient-1');
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    assert.equal(((await res.json()) as any).resourceType, 'OperationOutcome');
  }
  assert.equal(ehr.stats.requests.total, before);
});

test('the matrix: source × type × interaction for API-key callers', async (t) => {
  const { ehr, call } = await setUp(t);
  const cases: [string, string, string, unknown, number][] = [
    [KEYS.reader, 'GET', 'ehr/Patient/a-patient-1', undefined, 200],
    [KEYS.reader, 'GET', 'ehr/Observation?subject=Patient/a-patient-1', undefined, 200],
    [KEYS.reader, 'GET', 'ehr/Condition?subject=Patient/a-patient-1', undefined, 403],
    [KEYS.reader, 'POST', 'ehr/Patient', { resourceType: 'Patient' }, 403],
    [KEYS.reader, 'DELETE', 'ehr/Patient/a-patient-2', undefined, 403],
    [KEYS.reader, 'GET', 'ehr/Patient/a-patient-1/$everything', undefined, 403],
    [KEYS.labOnly, 'GET', 'lab/Patient/b-patient-1', undefined, 200],
    [KEYS.labOnly, 'GET', 'ehr/Patient/a-patient-1', undefined, 403],
    [KEYS.admin, 'POST', 'ehr/Patient', { resourceType: 'Patient', name: [{ family: 'New' }] }, 201],
    [KEYS.admin, 'DELETE', 'ehr/Condition/a-patient-5-cond-1', undefined, 200],
    [KEYS.admin, 'POST', 'ehr', { resourceType: 'Bundle', type: 'batch', entry: [{ request: { method: 'GET', url: 'Patient/a-patient-1' } }] }, 200],
    [KEYS.reader, 'POST', 'ehr', { resourceType: 'Bundle', type: 'batch', entry: [{ request: { method: 'DELETE', url: 'Patient/a-patient-1' } }] }, 403],
  ];
  for (const [key, method, path, body, status] of cases) {
    const before = ehr.stats.requests.total;
    const res = await call(key, method, path, body);
    await res.arrayBuffer();
    assert.equal(res.status === 204 ? 200 : res.status, status, `${method} ${path}`);
    if (status === 403) assert.equal(ehr.stats.requests.total, before, `${method} ${path}: refused before going upstream`);
  }
});

test('a compartment-bound caller: its own data, 404 outside, searches constrained before going upstream, writes checked first', async (t) => {
  const { ehr, call } = await setUp(t);
  assert.equal((await call(KEYS.patient1, 'GET', 'ehr/Patient/a-patient-1')).status, 200);
  const other = await call(KEYS.patient1, 'GET', 'ehr/Patient/a-patient-2');
  assert.equal(other.status, 404, 'another patient is "not known"');
  assert.equal((await call(KEYS.patient1, 'GET', 'ehr/Observation/a-patient-2-obs-1-1')).status, 404, 'another patient\'s observation is "not known"');
  assert.equal((await call(KEYS.patient1, 'GET', 'ehr/Observation/a-patient-1-obs-1-1')).status, 200);
  const all = (await (await call(KEYS.patient1, 'GET', 'ehr/Observation?_count=100')).json()) as any;
  assert.ok(all.entry.length > 0);
  assert.ok(all.entry.every((e: any) => e.resource.subject.reference === 'Patient/a-patient-1'), 'only its own observations');
  const asked = (await (await call(KEYS.patient1, 'GET', 'ehr/Observation?subject=Patient/a-patient-2')).json()) as any;
  assert.equal(asked.entry?.length ?? 0, 0, 'asking for another patient finds nothing');
  for (const q of ['Observation?subject.name=x', 'Patient?_has:Observation:subject:code=1', 'Observation?_include=Observation:subject', 'Patient?_revinclude=Observation:subject']) {
    const before = ehr.stats.requests.total;
    assert.equal((await call(KEYS.patient1, 'GET', `ehr/${q}`)).status, 403, q);
    assert.equal(ehr.stats.requests.total, before, `${q} was refused before going upstream`);
  }
  const foreign = { resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/a-patient-2' } };
  const before = ehr.stats.requests.total;
  assert.equal((await call(KEYS.patient1, 'POST', 'ehr/Observation', foreign)).status, 403, 'a write outside the compartment');
  assert.equal(ehr.stats.requests.total, before, 'checked before it was sent');
  assert.equal((await call(KEYS.patient1, 'POST', 'ehr/Observation', { ...foreign, subject: { reference: 'Patient/a-patient-1' } })).status, 201);
  assert.equal((await call(KEYS.patient1, 'DELETE', 'ehr/Condition/a-patient-2-cond-1')).status, 404, 'deleting another patient\'s data');
  assert.equal((await call(KEYS.patient1, 'PUT', 'ehr/Observation/a-patient-2-obs-1-1', { ...foreign, id: 'a-patient-2-obs-1-1', subject: { reference: 'Patient/a-patient-1' } })).status, 404, 'overwriting another patient\'s data by naming oneself');
  assert.equal((await call(KEYS.patient1, 'GET', 'ehr/Observation/a-patient-2-obs-1-1')).status, 404);
  assert.equal((await call(KEYS.admin, 'GET', 'ehr/Observation/a-patient-2-obs-1-1').then((r) => r.json()) as any).subject.reference, 'Patient/a-patient-2', 'still the other patient\'s');
});

test('JWT callers: scopes v1/v2 from the token within the issuer\'s ceiling, patient scopes bound to the token\'s patient', async (t) => {
  const { call } = await setUp(t);
  const system = jwt({ scope: 'system/Patient.rs' });
  assert.equal((await call(system, 'GET', 'lab/Patient/b-patient-1')).status, 200);
  assert.equal((await call(system, 'GET', 'lab/Observation?_count=1')).status, 403, 'no Observation scope');
  assert.equal((await call(jwt({ scope: 'system/Patient.write' }), 'POST', 'lab/Patient', { resourceType: 'Patient' })).status, 403, 'write is over the issuer\'s ceiling (system/*.rs)');
  const v1 = jwt({ scope: 'patient/*.read', patient: 'a-patient-3' });
  assert.equal((await call(v1, 'GET', 'ehr/Patient/a-patient-3')).status, 200);
  assert.equal((await call(v1, 'GET', 'ehr/Patient/a-patient-1')).status, 404);
  const v2 = jwt({ scope: 'patient/Observation.crs', patient: 'a-patient-3' });
  assert.equal((await call(v2, 'POST', 'ehr/Observation', { resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/a-patient-3' } })).status, 201);
  assert.equal((await call(jwt({ scope: 'patient/*.rs' }), 'GET', 'ehr/Patient/a-patient-3')).status, 403, 'patient scopes without a patient claim grant nothing');
  assert.equal((await call(jwt({ scope: 'system/*.rs', exp: Math.floor(Date.now() / 1000) - 3600 }), 'GET', 'ehr/Patient/a-patient-3')).status, 401, 'expired');
});

test('a facade with no caller configured serves nothing; open read-only serves reads and searches only', async (t) => {
  const ehr = await sandbox(t, { open: true });
  const closed = new FHIRFacade(new AsyncFHIRGateway());
  assert.equal(closed.closed, true);
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, {});
  assert.equal((await fetch(`${h.prefix}/ehr/Patient/a-patient-1`)).status, 404, 'no facade route at all');
  const open = await facadeHarness(t, { ehr: ehr.connectionString() }, { openReadOnly: true });
  assert.equal((await fetch(`${open.prefix}/ehr/Patient/a-patient-1`)).status, 200);
  assert.equal((await fetch(`${open.prefix}/ehr/Patient?_count=1`)).status, 200);
  assert.equal((await fetch(`${open.prefix}/ehr/Patient`, { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: '{"resourceType":"Patient"}' })).status, 403);
});
