// Callers bound by identity (issue 35 item 3): an API key's `patient: { identifier: 'system|value' }`, or
// a token's `patient` claim (a local id of the issuer's `patientSource`) when the gateway resolves
// identity. The same person has different local ids in ehr, lab and research; `shared-1` is Bob in ehr
// and Carol in lab; research holds two Bobs (ambiguous); the caller-writable portal plants Ann's and
// Bob's MRN without being an authority for it. Each source is asked with its own local id, and the
// caller never sees another person's resource: read, search, federated search and read, `_include`.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client } from 'fhir-kit-client';
import { FHIRFacade } from '../../src/facade/index.js';
import type { APIKeyCaller, IssuerCallers } from '../../src/facade/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { facadeHarness } from '../support/facade-harness.js';
import { runMain, tempDir } from '../support/run-cli.js';
import { startServer } from '../support/test-server.js';
import { IDENTITY, MRN } from '../gateway/identity/fixtures.js';
import { ANN, BOB, fourSources, get, ids, outcomes } from './identity-fixtures.js';

const KEYS = { ann: 'ann-portal-key-0123456789', bob: 'bob-portal-key-0123456789', annReach: 'ann-reach-key-0123456789', admin: 'admin-key-0123456789abcd' };
const ISSUER = 'https://idp.example.org';
const AUDIENCE = 'https://gw.example.org/fhir';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...toPublicJWK(publicKey), kid: 'k1', alg: 'ES256' };

const callers: (APIKeyCaller | IssuerCallers)[] = [
  { name: 'admin', apiKey: KEYS.admin, sources: '*', scopes: 'system/*.rs' },
  { name: 'ann', apiKey: KEYS.ann, sources: '*', scopes: 'patient/*.rs', patient: { identifier: ANN } },
  { name: 'bob', apiKey: KEYS.bob, sources: '*', scopes: 'patient/*.rs', patient: { identifier: BOB } },
  { name: 'ann-reach', apiKey: KEYS.annReach, sources: ['ehr', 'lab'], scopes: 'patient/*.rs', patient: { identifier: ANN }, allowReaching: true },
  { issuer: ISSUER, jwks: { keys: [jwk] }, audience: AUDIENCE, sources: '*', scopes: 'patient/*.rs', patientSource: 'ehr' },
];

function token(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  return signJWT({ alg: 'ES256', kid: 'k1' }, { iss: ISSUER, aud: AUDIENCE, sub: 'app-1', exp: now + 300, iat: now, jti: randomUUID(), ...claims }, privateKey);
}

/** Patient searches (resolutions) a sandbox answered so far. */
const patientSearches = (sb: Sandbox): number => sb.stats.requests.byKind.search ?? 0;

test('a caller bound by identifier, or by identifier outside identity.systems, or without the gateway\'s identity option, is refused at start (in code and in fhirgate.json)', async (t) => {
  const bare = new AsyncFHIRGateway();
  t.after(() => bare.close());
  const portal: APIKeyCaller = { name: 'portal', apiKey: 'portal-key-0123456789', sources: '*', scopes: 'patient/*.rs', patient: { identifier: ANN } };
  assert.throws(() => new FHIRFacade(bare, { callers: [portal] }), { name: 'TypeError', message: /^options\.callers\[0\] \(portal\) is bound to a patient by identifier, but identity is not configured/ });
  const linked = new AsyncFHIRGateway({ identity: IDENTITY });
  t.after(() => linked.close());
  assert.doesNotThrow(() => new FHIRFacade(linked, { callers: [portal] }));
  assert.throws(() => new FHIRFacade(linked, { callers: [{ ...portal, patient: { identifier: 'http://other.example.org/id|1' } }] }), { message: /system "http:\/\/other\.example\.org\/id" is not one of identity\.systems/ });
  assert.throws(() => new FHIRFacade(linked, { callers: [{ ...portal, patient: { identifier: 'no-bar' } }] }), { message: /options\.callers\[0\]\.patient\.identifier must be "system\|value"/ });
  assert.throws(() => new FHIRFacade(linked, { callers: [{ ...portal, patient: { identifer: ANN } as never }] }), { message: /identifer.*identifier/ });

  const dir = tempDir(t);
  const sources = { ehr: 'fhir://127.0.0.1:1/fhir/', lab: 'fhir://127.0.0.1:2/fhir/' };
  const config = (extra: Record<string, unknown>) => {
    const file = join(dir, `${randomUUID()}.json`);
    writeFileSync(file, JSON.stringify({ sources, callers: [{ ...portal, apiKey: '${PORTAL_KEY}' }], ...extra }));
    return runMain(['check', '--config', file], { PORTAL_KEY: portal.apiKey });
  };
  const without = await config({});
  assert.equal(without.code, 1);
  assert.match(without.stderr, /callers\[0\] \(portal\): bound to a patient by identifier, but identity is not configured .*set identity\.systems/);
  assert.doesNotMatch(without.stderr, /portal-key/, 'never the key');
  const other = await config({ identity: { systems: ['urn:oid:2.16.840.1.113883.4.1'] } });
  assert.equal(other.code, 1);
  assert.match(other.stderr, /not one of identity\.systems/);
  const good = await config({ identity: { systems: [MRN], authorities: { [MRN]: ['ehr', 'lab'] } } });
  assert.match(good.stdout, /^SOURCE\s+BASE URL/, 'the config is valid: check goes on to the sources (none listens here)');
  assert.doesNotMatch(good.stderr, /identity|callers/);
});

test('an identifier-bound caller sees one person in every source under that source\'s own local id; another person sharing a local id never; the planted identifier ignored', async (t) => {
  const { sandboxes, sources, identity } = await fourSources(t);
  const h = await facadeHarness(t, sources, { callers }, Object.values(KEYS), { identity });
  const all = await get(`${h.prefix}/all/Observation`, KEYS.admin);
  assert.equal(ids(all.body).length, 7, 'seven Observations of five people across the four sources');

  const federated = await get(`${h.prefix}/all/Observation`, KEYS.ann);
  assert.equal(federated.status, 200);
  assert.deepEqual(ids(federated.body), ['Observation/ehr.e-ann-obs', 'Observation/lab.l-ann-obs', 'Observation/research.r-ann-obs'], 'Ann\'s, from each source, nothing of Bob, Carol or the planted record');
  assert.deepEqual(outcomes(federated.body), [], 'the portal is absent for Ann (no authority for MRN): skipped, not an error');
  assert.deepEqual(ids((await get(`${h.prefix}/all/Patient`, KEYS.ann)).body), ['Patient/ehr.e-ann', 'Patient/lab.l-ann', 'Patient/research.r-ann']);

  // Each source base, through an unmodified FHIR client.
  for (const [source, id] of [['ehr', 'e-ann'], ['lab', 'l-ann'], ['research', 'r-ann']] as const) {
    const client = new Client({ baseUrl: `${h.prefix}/${source}`, customHeaders: { 'x-api-key': KEYS.ann } });
    const found = (await client.search({ resourceType: 'Observation', searchParams: { _count: 50 } })) as any;
    assert.deepEqual(ids(found), [`Observation/${id}-obs`], source);
    assert.equal(((await client.read({ resourceType: 'Patient', id })) as any).id, id);
  }
  const received = sandboxes.lab!.stats.requests.total;
  for (const path of ['lab/Patient/shared-1', 'lab/Observation/l-carol-obs', 'lab/Patient/l-dan', 'ehr/Patient/shared-1', 'ehr/Observation/e-bob-obs', 'all/Observation/lab.l-carol-obs', 'all/Patient/lab.shared-1']) {
    assert.equal((await get(`${h.prefix}/${path}`, KEYS.ann)).status, 404, `${path}: another person's, as if it did not exist`);
  }
  assert.ok(sandboxes.lab!.stats.requests.total > received);
  const asked = await get(`${h.prefix}/lab/Observation?subject=Patient/shared-1`, KEYS.ann);
  assert.deepEqual(ids(asked.body), [], 'a search naming another person is constrained to lab\'s Ann');

  const portalBefore = sandboxes.portal!.stats.requests.total;
  const atPortal = await get(`${h.prefix}/portal/Observation`, KEYS.ann);
  assert.equal(atPortal.status, 403);
  assert.match(atPortal.body.issue[0].diagnostics, /the caller's patient is not in source "portal"/);
  assert.equal((await get(`${h.prefix}/all/Observation/portal.planted-obs`, KEYS.ann)).status, 404);
  assert.equal(sandboxes.portal!.stats.requests.total, portalBefore, 'the portal is never asked for Ann');
});

test('a token\'s patient claim (ehr\'s local id) binds the person across sources: lab\'s shared-1 is someone else; research\'s two records are refused and named', async (t) => {
  const { sandboxes, sources, identity } = await fourSources(t);
  const bobToken = token({ scope: 'patient/*.rs', patient: 'shared-1' });
  const h = await facadeHarness(t, sources, { callers }, [...Object.values(KEYS), bobToken], { identity });
  const federated = await get(`${h.prefix}/all/Observation`, bobToken);
  assert.equal(federated.status, 200);
  assert.deepEqual(ids(federated.body), ['Observation/ehr.e-bob-obs'], 'Bob\'s, never Carol\'s l-carol-obs (lab\'s shared-1) nor research\'s');
  const named = outcomes(federated.body);
  assert.equal(named.length, 1);
  assert.match(named[0]!, /source "research" is refused for the caller's patient: the patient is ambiguous there/);
  const issue = federated.body.entry.find((e: any) => e.search?.mode === 'outcome').resource.issue[0];
  assert.equal(issue.code, 'multiple-matches');

  const researchData = () => sandboxes.research!.stats.requests.total - patientSearches(sandboxes.research!);
  const before = researchData();
  const atResearch = await get(`${h.prefix}/research/Observation`, bobToken);
  assert.equal(atResearch.status, 403);
  assert.match(atResearch.body.issue[0].diagnostics, /source "research" is refused for the caller's patient: the patient is ambiguous there/);
  assert.equal((await get(`${h.prefix}/research/Patient/r-bob-1`, bobToken)).status, 403);
  assert.equal((await get(`${h.prefix}/all/Observation/research.r-bob-obs`, bobToken)).status, 404);
  const atLab = await get(`${h.prefix}/lab/Observation`, bobToken);
  assert.equal(atLab.status, 403, 'lab holds no Bob: its shared-1 is Carol');
  assert.match(atLab.body.issue[0].diagnostics, /not in source "lab"/);
  assert.equal((await get(`${h.prefix}/all/Patient/lab.shared-1`, bobToken)).status, 404);
  assert.deepEqual(ids((await get(`${h.prefix}/ehr/Observation`, bobToken)).body), ['Observation/e-bob-obs']);
  assert.equal(researchData(), before, 'research was asked only to resolve, never for Bob\'s data');
  assert.equal(
    h.answers.filter((a) => ['l-carol-obs', 'r-bob-obs', 'planted'].some((other) => a.body.includes(other) && !a.line.includes(other))).length, 0,
    'no answer to Bob holds another person\'s resource',
  );
  // The same issuer without identity on the gateway: the claim stays ehr's id, served at ehr only (unchanged).
  const plain = await facadeHarness(t, sources, { callers: callers.filter((c) => 'issuer' in c) }, [bobToken]);
  assert.deepEqual(ids((await get(`${plain.prefix}/all/Observation`, bobToken)).body), ['Observation/ehr.e-bob-obs']);
  assert.match((await get(`${plain.prefix}/lab/Observation`, bobToken)).body.issue[0].diagnostics, /patient id of source "ehr".*not applied to "lab"/);
});

test('a source down during resolution is named (in the federated Bundle and at its base), never guessed around; resolved again once it is back', async (t) => {
  const { sandboxes, sources, identity } = await fourSources(t);
  const h = await facadeHarness(t, sources, { callers }, Object.values(KEYS), { identity });
  sandboxes.lab!.faults.failNext(1, 503);
  const federated = await get(`${h.prefix}/all/Observation`, KEYS.ann);
  assert.equal(federated.status, 200);
  assert.deepEqual(ids(federated.body), ['Observation/ehr.e-ann-obs', 'Observation/research.r-ann-obs']);
  assert.deepEqual(outcomes(federated.body).map((d) => /source "lab" is refused for the caller's patient: the patient could not be resolved there \(ERR_/.test(d)), [true]);
  const strict = await fetch(`${h.prefix}/all/Observation`, { headers: { 'x-api-key': KEYS.ann, prefer: 'handling=strict' } });
  // A failed resolution is not cached: lab is back, so this resolves afresh and lab answers.
  assert.equal(strict.status, 200);
  assert.deepEqual(ids(await strict.json()), ['Observation/ehr.e-ann-obs', 'Observation/lab.l-ann-obs', 'Observation/research.r-ann-obs']);
  sandboxes.lab!.faults.failNext(1, 500);
  // Ann's resolution is cached now; Bob's is made afresh, and lab fails it.
  const atLab = await get(`${h.prefix}/lab/Observation`, KEYS.bob);
  assert.equal(atLab.status, 403);
  assert.match(atLab.body.issue[0].diagnostics, /source "lab" is refused for the caller's patient: the patient could not be resolved there/);
});

test('_include with allowReaching: the included resources of another person are cut; the source is asked with its own local id', async (t) => {
  // lab is a narrow server here: the sandbox has no _include. It resolves MRN 100 to l-ann and answers every
  // Observation search with Ann's match plus Carol's match and included Patient.
  const lab = await startServer(t, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const patient = (id: string, mrn: string) => ({ resourceType: 'Patient', id, identifier: [{ system: MRN, value: mrn }] });
    const obs = (id: string, subject: string) => ({ resourceType: 'Observation', id, status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${subject}` } });
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    if (url.pathname === '/fhir/Patient' && url.searchParams.get('identifier') === ANN) {
      res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', entry: [{ resource: patient('l-ann', '100'), search: { mode: 'match' } }] }));
    } else if (url.pathname === '/fhir/Patient') {
      res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', entry: [] }));
    } else {
      res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', entry: [
        { resource: obs('l-ann-obs', 'l-ann'), search: { mode: 'match' } }, { resource: obs('l-carol-obs', 'shared-1'), search: { mode: 'match' } },
        { resource: patient('l-ann', '100'), search: { mode: 'include' } }, { resource: patient('shared-1', '300'), search: { mode: 'include' } },
      ] }));
    }
  });
  const h = await facadeHarness(t, { lab: `fhir://${new URL(lab.url).host}/fhir/` }, { callers }, Object.values(KEYS), { identity: { ...IDENTITY, authorities: { [MRN]: ['lab'] } } });
  const atLab = await get(`${h.prefix}/lab/Observation?_include=Observation:subject`, KEYS.annReach);
  assert.equal(atLab.status, 200);
  assert.deepEqual(ids(atLab.body), ['Observation/l-ann-obs', 'Patient/l-ann'], 'Carol\'s match and her included Patient cut');
  const asked = lab.seen.filter((s) => s.url.startsWith('/fhir/Observation')).map((s) => new URL(s.url, 'http://x').searchParams);
  assert.ok(asked.length > 0 && asked.every((q) => q.getAll('subject').includes('Patient/l-ann') || q.getAll('patient').includes('Patient/l-ann')), 'lab was asked with lab\'s local id');
  const federated = await get(`${h.prefix}/all/Observation?_include=Observation:subject`, KEYS.annReach);
  assert.deepEqual(ids(federated.body), ['Observation/lab.l-ann-obs', 'Patient/lab.l-ann']);
  assert.ok(!JSON.stringify(federated.body).includes('shared-1') && !JSON.stringify(atLab.body).includes('shared-1'), 'nothing of Carol');
});

test('writes are checked per source against that source\'s local id of the person', async (t) => {
  const { sandboxes, sources, identity } = await fourSources(t);
  const key = 'ann-writer-key-0123456789';
  const writer: APIKeyCaller = { name: 'ann-writer', apiKey: key, sources: ['ehr', 'lab'], scopes: 'patient/*.cruds', patient: { identifier: ANN } };
  const h = await facadeHarness(t, sources, { callers: [writer] }, [key], { identity });
  const create = (source: string, subject: string) => fetch(`${h.prefix}/${source}/Observation`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/fhir+json' },
    body: JSON.stringify({ resourceType: 'Observation', status: 'final', code: { text: 'weight' }, subject: { reference: `Patient/${subject}` } }),
  });
  const writes = () => sandboxes.lab!.stats.requests.byKind.create ?? 0;
  assert.equal((await create('lab', 'e-ann')).status, 403, 'ehr\'s id of Ann is no one at lab');
  assert.equal((await create('lab', 'shared-1')).status, 403, 'lab\'s shared-1 is Carol');
  assert.equal(writes(), 0, 'lab was never sent a write');
  assert.equal((await create('lab', 'l-ann')).status, 201);
  assert.equal((await create('ehr', 'e-ann')).status, 201);
  const update = await fetch(`${h.prefix}/lab/Observation/l-carol-obs`, {
    method: 'PUT', headers: { 'x-api-key': key, 'content-type': 'application/fhir+json' },
    body: JSON.stringify({ resourceType: 'Observation', id: 'l-carol-obs', status: 'final', code: { text: 'pulse' }, subject: { reference: 'Patient/l-ann' } }),
  });
  assert.equal(update.status, 404, 'Carol\'s Observation cannot be taken over: its current subject is outside Ann\'s compartment');
});
