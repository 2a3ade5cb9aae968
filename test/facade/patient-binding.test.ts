// A patient id is local to one source: `Patient/shared-1` in `ehr` and in `lab` are two people. A caller
// bound to a bare patient id (an API key's `patient`, a token's `patient` claim) gets that patient's data
// from the one source the id belongs to, and nothing from the other, at the federated base, at each
// source base and through federated reads; the other source is never asked with that id. A config that
// binds one bare id to several sources is refused at start, naming the caller.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { FHIRFacade } from '../../src/facade/index.js';
import type { APIKeyCaller, IssuerCallers } from '../../src/facade/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import type { Resource } from '../../src/fhir/index.js';
import { facadeHarness } from '../support/facade-harness.js';
import { runMain, startCli, tempDir, waitServing } from '../support/run-cli.js';
import { sandbox } from '../support/sandbox.js';

const KEYS = { ehrPatient: 'ehr-shared-1-key-0123456789', admin: 'admin-key-0123456789abcd' };
const ISSUER = 'https://idp.example.org';
const NO_SOURCE_ISSUER = 'https://other-idp.example.org';
const AUDIENCE = 'https://gw.example.org/fhir';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...toPublicJWK(publicKey), kid: 'k1', alg: 'ES256' };

/** One person's Patient/shared-1 and an Observation about them: a different person in each sandbox. */
function person(family: string, observation: string): Resource[] {
  return [
    { resourceType: 'Patient', id: 'shared-1', name: [{ family }] } as Resource,
    { resourceType: 'Observation', id: observation, status: 'final', code: { text: `${family}'s weight` }, subject: { reference: 'Patient/shared-1' } } as Resource,
  ];
}

function token(iss: string, claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  return signJWT({ alg: 'ES256', kid: 'k1' }, { iss, aud: AUDIENCE, sub: 'app-1', exp: now + 300, iat: now, jti: randomUUID(), ...claims }, privateKey);
}

async function twoPeople(t: TestContext) {
  const ehr = await sandbox(t, { open: true, seed: person('Ehrperson', 'ehr-obs') });
  const lab = await sandbox(t, { open: true, seed: person('Labperson', 'lab-obs') });
  return { ehr, lab, sources: { ehr: ehr.connectionString(), lab: lab.connectionString() } };
}

const callers: (APIKeyCaller | IssuerCallers)[] = [
  { name: 'admin', apiKey: KEYS.admin, sources: '*', scopes: 'system/*.rs' },
  { name: 'ehr-patient', apiKey: KEYS.ehrPatient, sources: ['ehr'], scopes: 'system/*.rs', patient: 'shared-1' },
  { issuer: ISSUER, jwks: { keys: [jwk] }, audience: AUDIENCE, sources: '*', scopes: 'system/*.rs patient/*.rs', patientSource: 'ehr' },
  { issuer: NO_SOURCE_ISSUER, jwks: { keys: [jwk] }, audience: AUDIENCE, sources: '*', scopes: 'system/*.rs patient/*.rs' },
];

async function get(url: string, credential: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: credential.split('.').length === 3 ? { authorization: `Bearer ${credential}` } : { 'x-api-key': credential } });
  return { status: res.status, body: await res.json() };
}

const ids = (bundle: any): string[] => (bundle.entry ?? []).filter((e: any) => e.search?.mode !== 'outcome').map((e: any) => e.resource.id as string).sort();

test('a config binding one bare patient id to several sources is refused at start, naming the caller: in code and in fhirgate.json', async (t) => {
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  for (const sources of ['*', ['ehr', 'lab']] as const) {
    const portal = { name: 'portal', apiKey: 'portal-key-0123456789', sources, scopes: 'patient/*.rs', patient: '123' };
    assert.throws(() => new FHIRFacade(gw, { callers: [callers[0]!, portal] }), { name: 'TypeError', message: /^options\.callers\[1\] \(portal\) binds one patient id to .*local to one source.*give this caller the one source/ });
    const dir = tempDir(t);
    writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: 'fhir://127.0.0.1:1/fhir/', lab: 'fhir://127.0.0.1:2/fhir/' }, callers: [callers[0], portal] }));
    const run = await runMain(['check', '--config', join(dir, 'fhirgate.json')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /ERR_CONFIG|callers\[1\] \(portal\): binds one patient id to/);
    assert.match(run.stderr, /callers\[1\] \(portal\): binds one patient id to (every source|2 sources).*one source/);
    assert.doesNotMatch(run.stderr, /portal-key/, 'never the key');
  }
  const fixed = { issuer: ISSUER, jwks: { keys: [jwk] }, audience: AUDIENCE, sources: '*' as const, scopes: 'patient/*.rs', patient: '123' };
  assert.throws(() => new FHIRFacade(gw, { callers: [fixed] }), { message: /callers\[0\] \(https:\/\/idp\.example\.org\) binds one patient id to every source/ });
  assert.throws(() => new FHIRFacade(gw, { callers: [{ ...callers[2]!, sources: ['lab'] } as IssuerCallers] }), { message: /callers\[0\]\.patientSource must be one of its sources/ });
  assert.doesNotThrow(() => new FHIRFacade(gw, { callers: [{ name: 'one', apiKey: 'one-key-0123456789ab', sources: ['ehr'], scopes: 'patient/*.rs', patient: '123' }] }));
});

test('an API-key caller bound to ehr\'s Patient/shared-1: ehr\'s person only, at the federated base, at each source base and by federated id; lab never asked', async (t) => {
  const { ehr, lab, sources } = await twoPeople(t);
  const h = await facadeHarness(t, sources, { callers }, Object.values(KEYS));
  const everyone = await get(`${h.prefix}/all/Observation`, KEYS.admin);
  assert.deepEqual(ids(everyone.body), ['ehr.ehr-obs', 'lab.lab-obs'], 'both people hold Patient/shared-1 with an Observation');
  const labBefore = lab.stats.requests.total;
  const ehrBefore = ehr.stats.requests.total;
  const federated = await get(`${h.prefix}/all/Observation`, KEYS.ehrPatient);
  assert.equal(federated.status, 200);
  assert.deepEqual(ids(federated.body), ['ehr.ehr-obs'], 'not the other person\'s Observation');
  assert.deepEqual(ids((await get(`${h.prefix}/all/Patient`, KEYS.ehrPatient)).body), ['ehr.shared-1']);
  assert.deepEqual(ids((await get(`${h.prefix}/ehr/Observation`, KEYS.ehrPatient)).body), ['ehr-obs']);
  const atLab = await get(`${h.prefix}/lab/Observation`, KEYS.ehrPatient);
  assert.equal(atLab.status, 403);
  assert.equal(atLab.body.resourceType, 'OperationOutcome');
  assert.equal((await get(`${h.prefix}/lab/Patient/shared-1`, KEYS.ehrPatient)).status, 403);
  assert.equal((await get(`${h.prefix}/all/Observation/lab.lab-obs`, KEYS.ehrPatient)).status, 404, 'a federated read of the other source');
  assert.equal((await get(`${h.prefix}/all/Patient/lab.shared-1`, KEYS.ehrPatient)).status, 404);
  assert.equal(lab.stats.requests.total, labBefore, 'lab was never asked with ehr\'s patient id');
  assert.ok(ehr.stats.requests.total > ehrBefore);
});

test('a token\'s patient claim is an id of the issuer\'s patientSource: served there only, refused elsewhere (what to configure said), never asked elsewhere', async (t) => {
  const { ehr, lab, sources } = await twoPeople(t);
  const patientToken = token(ISSUER, { scope: 'patient/*.rs', patient: 'shared-1' });
  const unsourced = token(NO_SOURCE_ISSUER, { scope: 'patient/*.rs', patient: 'shared-1' });
  const systemToken = token(ISSUER, { scope: 'system/Observation.rs' });
  const h = await facadeHarness(t, sources, { callers }, [patientToken, unsourced, systemToken]);
  assert.deepEqual(ids((await get(`${h.prefix}/all/Observation`, systemToken)).body), ['ehr.ehr-obs', 'lab.lab-obs'], 'a token without a patient is not held to one source');
  const labBefore = lab.stats.requests.total;
  const federated = await get(`${h.prefix}/all/Observation`, patientToken);
  assert.equal(federated.status, 200);
  assert.deepEqual(ids(federated.body), ['ehr.ehr-obs'], 'not the other person\'s Observation');
  assert.deepEqual(ids((await get(`${h.prefix}/ehr/Observation`, patientToken)).body), ['ehr-obs']);
  const atLab = await get(`${h.prefix}/lab/Observation`, patientToken);
  assert.equal(atLab.status, 403);
  assert.match(atLab.body.issue[0].diagnostics, /patient id of source "ehr".*not applied to "lab"/);
  assert.equal((await get(`${h.prefix}/all/Observation/lab.lab-obs`, patientToken)).status, 404);
  assert.equal(lab.stats.requests.total, labBefore, 'lab was never asked with ehr\'s patient id');

  const ehrBefore = ehr.stats.requests.total;
  for (const path of ['all/Observation', 'ehr/Observation', 'lab/Observation', 'ehr/Patient/shared-1']) {
    const refused = await get(`${h.prefix}/${path}`, unsourced);
    assert.equal(refused.status, 403, `${path}: an issuer without patientSource serves patient-bound tokens on no source`);
    assert.match(refused.body.issue[0].diagnostics, /set patientSource on issuer "https:\/\/other-idp\.example\.org"/, path);
  }
  assert.equal((await get(`${h.prefix}/all/Patient/ehr.shared-1`, unsourced)).status, 404);
  assert.equal(ehr.stats.requests.total, ehrBefore, 'no source was asked');
  assert.equal(lab.stats.requests.total, labBefore, 'no source was asked');
});

test('fhirgate serve: the docs\' old portal caller (patient bound to sources "*") stops at start; bound to one source, the other person\'s Observation never comes back', async (t) => {
  const { lab, sources } = await twoPeople(t);
  const dir = tempDir(t);
  const portal = { name: 'portal', apiKey: '${PORTAL_KEY}', sources: '*', scopes: 'patient/*.rs', patient: 'shared-1' };
  writeFileSync(join(dir, 'wide.json'), JSON.stringify({ sources, callers: [portal] }));
  const wide = startCli(t, ['serve', '--config', join(dir, 'wide.json'), '--port', '0'], { PORTAL_KEY: KEYS.ehrPatient });
  const started = await Promise.race([wide.exited.then((code) => ({ code })), waitServing(wide).then((serving) => ({ serving }))]);
  if ('serving' in started) {
    const leaked = await get(`${started.serving.gateway}/all/Observation`, KEYS.ehrPatient);
    assert.fail(`served, and /all/Observation gave ${ids(leaked.body).join(', ')}`);
  }
  assert.equal(started.code, 1, 'refused at start, not served');
  assert.match(wide.stderr(), /callers\[0\] \(portal\): binds one patient id to every source/);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources, callers: [{ ...portal, sources: ['ehr'] }, callers[3]] }));
  const run = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json'), '--port', '0'], { PORTAL_KEY: KEYS.ehrPatient });
  const serving = await waitServing(run);
  assert.match(run.stderr(), /issuer https:\/\/other-idp\.example\.org: tokens with a patient claim are served on no source; set patientSource/, 'said at start');
  const labBefore = lab.stats.requests.total;
  const all = await get(`${serving.gateway}/all/Observation`, KEYS.ehrPatient);
  assert.equal(all.status, 200);
  assert.deepEqual(ids(all.body), ['ehr.ehr-obs']);
  assert.equal((await get(`${serving.gateway}/lab/Observation`, KEYS.ehrPatient)).status, 403);
  assert.equal(lab.stats.requests.total, labBefore);
});
