// Patient/$everything at the federated base: one person's record from every source where the person
// resolves (same MRN, different local ids), merged with federated ids, Patient.link seealso between the
// sources' records, _type/_since/_count honoured, paged with page tokens that fhir-kit-client follows,
// ambiguous and failing sources named, patient-bound callers held to their own patient.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Client } from 'fhir-kit-client';
import type { APIKeyCaller } from '../../src/facade/index.js';
import type { Resource } from '../../src/fhir/index.js';
import { facadeHarness } from '../support/facade-harness.js';
import { freePort } from '../support/free-port.js';
import { sandbox } from '../support/sandbox.js';
import { startServer } from '../support/test-server.js';

const MRN = 'http://hospital.example.org/mrn';
const KEYS = { admin: 'everything-admin-key-0123456789', plain: 'no-everything-key-0123456789', ann: 'ann-portal-key-0123456789ab' };
const IDENTITY = { identity: { systems: [MRN], ttlSeconds: 300 } };

const patient = (id: string, mrn: string): Resource => ({ resourceType: 'Patient', id, identifier: [{ system: MRN, value: mrn }] }) as Resource;
const obs = (id: string, subject: string, lastUpdated = '2026-01-01T00:00:00Z'): Resource =>
  ({ resourceType: 'Observation', id, status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${subject}` }, meta: { lastUpdated } }) as Resource;
const condition = (id: string, subject: string): Resource => ({ resourceType: 'Condition', id, subject: { reference: `Patient/${subject}` } }) as Resource;

/** Ann is MRN 100: `e-ann` in ehr, `l-ann` in lab. `shared-1` is Bob (MRN 200) in ehr and Carol (MRN 300) in lab. Research holds two Bobs. */
const SEEDS = {
  ehr: [patient('e-ann', '100'), patient('shared-1', '200'), obs('e-ann-1', 'e-ann'), obs('e-ann-2', 'e-ann'), obs('e-ann-3', 'e-ann', '2026-06-01T00:00:00Z'), condition('e-ann-c', 'e-ann'), obs('e-bob', 'shared-1')],
  lab: [patient('l-ann', '100'), patient('shared-1', '300'), obs('l-ann-1', 'l-ann'), obs('l-ann-2', 'l-ann', '2026-06-01T00:00:00Z'), obs('l-carol', 'shared-1')],
  research: [patient('r-bob-1', '200'), patient('r-bob-2', '200'), obs('r-bob-obs', 'r-bob-1')],
};

const callers: APIKeyCaller[] = [
  { name: 'admin', apiKey: KEYS.admin, sources: '*', scopes: 'system/*.rs', operations: ['$everything'] },
  { name: 'plain', apiKey: KEYS.plain, sources: '*', scopes: 'system/*.rs' },
  { name: 'ann', apiKey: KEYS.ann, sources: ['ehr'], scopes: 'patient/*.rs', patient: 'e-ann', operations: ['$everything'] },
];

async function setUp(t: TestContext, names: (keyof typeof SEEDS)[] = ['ehr', 'lab'], gatewayOptions: object = IDENTITY) {
  const sandboxes = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await sandbox(t, { open: true, seed: SEEDS[n] })] as const)));
  const sources = Object.fromEntries(names.map((n) => [n, sandboxes[n]!.connectionString()]));
  const h = await facadeHarness(t, sources, { callers, federatedName: 'all' }, Object.values(KEYS), gatewayOptions);
  return { h, sandboxes };
}

async function get(url: string, key: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: { 'x-api-key': key, ...headers } });
  return { status: res.status, body: await res.json() };
}

const matches = (bundle: any): any[] => (bundle.entry ?? []).filter((e: any) => e.search?.mode !== 'outcome');
const idsOf = (bundle: any): string[] => matches(bundle).map((e: any) => `${e.resource.resourceType}/${e.resource.id}`).sort();
const outcomes = (bundle: any): string[] => (bundle.entry ?? []).filter((e: any) => e.search?.mode === 'outcome').flatMap((e: any) => e.resource.issue.map((i: any) => `${i.code}: ${i.diagnostics}`));

const ANN = ['Condition/ehr.e-ann-c', 'Observation/ehr.e-ann-1', 'Observation/ehr.e-ann-2', 'Observation/ehr.e-ann-3', 'Observation/lab.l-ann-1', 'Observation/lab.l-ann-2', 'Patient/ehr.e-ann', 'Patient/lab.l-ann'];

test('$everything by federated id: every page followed by fhir-kit-client holds Ann of both sources, once, linked, nothing of Bob or Carol', async (t) => {
  const { h } = await setUp(t);
  const client = new Client({ baseUrl: `${h.prefix}/all`, customHeaders: { 'x-api-key': KEYS.admin } });
  let page = (await client.request('Patient/ehr.e-ann/$everything?_count=3')) as any;
  const entries: any[] = [];
  let pages = 0;
  while (page) {
    pages++;
    assert.equal(page.resourceType, 'Bundle');
    assert.equal(page.type, 'searchset');
    assert.ok(matches(page).length <= 3, 'a page holds at most _count entries');
    entries.push(...matches(page));
    page = await client.nextPage({ bundle: page });
  }
  assert.ok(pages >= 3, `paged (${pages} pages)`);
  assert.deepEqual(entries.map((e) => `${e.resource.resourceType}/${e.resource.id}`).sort(), ANN);
  assert.equal(new Set(entries.map((e) => e.fullUrl)).size, entries.length, 'no entry twice');
  for (const e of entries) assert.match(e.fullUrl, new RegExp(`^${h.prefix}/all/`));
  const ehrAnn = entries.find((e) => e.resource.id === 'ehr.e-ann').resource;
  const labAnn = entries.find((e) => e.resource.id === 'lab.l-ann').resource;
  assert.deepEqual(ehrAnn.link, [{ other: { reference: 'Patient/lab.l-ann' }, type: 'seealso' }]);
  assert.deepEqual(labAnn.link, [{ other: { reference: 'Patient/ehr.e-ann' }, type: 'seealso' }]);
  // References inside resolve against the federated base: lab's Observation names lab's Patient.
  assert.equal(entries.find((e) => e.resource.id === 'lab.l-ann-1').resource.subject.reference, 'Patient/lab.l-ann');
  // Each source's access is audited naming that source's own patient.
  const named = new Set(h.audits.flatMap((a) => (a.entity ?? []).map((e: any) => e.what?.reference)).filter((r: unknown) => typeof r === 'string' && r.startsWith('Patient/')));
  assert.ok(named.has('Patient/e-ann') && named.has('Patient/l-ann'), [...named].join(', '));
  assert.ok(![...named].includes('Patient/shared-1'));
  // The resolution itself is an AuditEvent: the identifier as the query, each source's record as a patient entity.
  const queries = (a: any) => (a.entity ?? []).filter((e: any) => e.query !== undefined).map((e: any) => Buffer.from(e.query, 'base64').toString('utf8'));
  const resolutions = h.audits.filter((a) => queries(a).some((q: string) => q.startsWith(`GET Patient?identifier=${MRN}|100`)));
  assert.ok(resolutions.length >= 1, 'the resolution is audited');
  const records = resolutions[0]!.entity.map((e: any) => e.what?.reference).filter((r: unknown) => typeof r === 'string');
  assert.ok(records.some((r: string) => r.endsWith('/ehr/Patient/e-ann')) && records.some((r: string) => r.endsWith('/lab/Patient/l-ann')), records.join(', '));
});

test('$everything by identifier gives the same record; _type and _since narrow it; _count=0 pages nothing', async (t) => {
  const { h } = await setUp(t);
  const all = `${h.prefix}/all/Patient/$everything`;
  const byIdentifier = await get(`${all}?identifier=${encodeURIComponent(`${MRN}|100`)}`, KEYS.admin);
  assert.equal(byIdentifier.status, 200);
  assert.deepEqual(idsOf(byIdentifier.body), ANN);
  const observations = await get(`${all}?identifier=${encodeURIComponent(`${MRN}|100`)}&_type=Observation`, KEYS.admin);
  assert.deepEqual(idsOf(observations.body), ANN.filter((id) => id.startsWith('Observation/')));
  // The sandbox stamps meta.lastUpdated when it stores: everything is newer than 2000, nothing than 2999.
  const sincePast = await get(`${all}?identifier=${encodeURIComponent(`${MRN}|100`)}&_type=Observation&_since=2000-01-01T00:00:00Z`, KEYS.admin);
  assert.deepEqual(idsOf(sincePast.body), ANN.filter((id) => id.startsWith('Observation/')));
  const sinceFuture = await get(`${all}?identifier=${encodeURIComponent(`${MRN}|100`)}&_since=2999-01-01T00:00:00Z`, KEYS.admin);
  assert.equal(sinceFuture.status, 200);
  assert.deepEqual(idsOf(sinceFuture.body), []);
  const none = await get(`${all}?identifier=${encodeURIComponent(`${MRN}|100`)}&_count=0`, KEYS.admin);
  assert.equal(none.status, 200);
  assert.deepEqual(idsOf(none.body), []);
  assert.equal(none.body.link.find((l: any) => l.relation === 'next'), undefined);
  const unknownPerson = await get(`${all}?identifier=${encodeURIComponent(`${MRN}|999`)}`, KEYS.admin);
  assert.equal(unknownPerson.status, 404);
});

test('$everything refuses bad input with a clear 4xx before anything goes upstream', async (t) => {
  const { h, sandboxes } = await setUp(t);
  const before = sandboxes.ehr!.stats.requests.total + sandboxes.lab!.stats.requests.total;
  const all = `${h.prefix}/all/Patient`;
  const cases: [string, number, RegExp][] = [
    [`${all}/ehr.e-ann/$everything?_since=yesterday`, 400, /_since must be a FHIR instant/],
    [`${all}/ehr.e-ann/$everything?_count=-1`, 400, /_count must be an integer/],
    [`${all}/ehr.e-ann/$everything?_type=Nonsense`, 400, /not a resource type/],
    [`${all}/ehr.e-ann/$everything?code=x`, 400, /takes identifier, _since, _type and _count/],
    [`${all}/$everything`, 400, /one of them/],
    [`${all}/ehr.e-ann/$everything?identifier=${encodeURIComponent(`${MRN}|100`)}`, 400, /one of them/],
    [`${all}/nowhere.1/$everything`, 404, /not an id of this base/],
    [`${all}/ehr.e-ann/$everything?_page_token=forged.token`, 400, /page token/],
  ];
  for (const [url, status, why] of cases) {
    const res = await get(url, KEYS.admin);
    assert.equal(res.status, status, url);
    assert.match(res.body.issue[0].diagnostics, why, url);
  }
  const plain = await get(`${all}/ehr.e-ann/$everything`, KEYS.plain);
  assert.equal(plain.status, 403);
  assert.match(plain.body.issue[0].diagnostics, /operation \$everything is not allowed/);
  assert.equal(sandboxes.ehr!.stats.requests.total + sandboxes.lab!.stats.requests.total, before, 'no source was asked');
});

test('an ambiguous source is refused and named, nothing of it shown; an absent source is not asked for data', async (t) => {
  const { h, sandboxes } = await setUp(t, ['ehr', 'lab', 'research']);
  const searchesBefore = sandboxes.lab!.stats.requests.byKind.search ?? 0;
  const res = await get(`${h.prefix}/all/Patient/ehr.shared-1/$everything`, KEYS.admin);
  assert.equal(res.status, 200);
  assert.deepEqual(idsOf(res.body), ['Observation/ehr.e-bob', 'Patient/ehr.shared-1']);
  const issues = outcomes(res.body);
  assert.equal(issues.length, 1, issues.join('\n'));
  assert.match(issues[0]!, /^multiple-matches: source "research" is refused for this patient/);
  assert.doesNotMatch(JSON.stringify(res.body), /r-bob|Carol|l-carol/);
  // lab's shared-1 is Carol: lab holds no Bob, so lab is searched once, to resolve, never for Bob's data.
  assert.equal((sandboxes.lab!.stats.requests.byKind.search ?? 0) - searchesBefore, 1);
  assert.equal(sandboxes.lab!.stats.requests.byKind.read, undefined);
});

test('a source failing its searches is an outcome entry; with Prefer: handling=strict the answer fails', async (t) => {
  const { h, sandboxes } = await setUp(t);
  const url = `${h.prefix}/all/Patient/ehr.e-ann/$everything`;
  assert.equal((await get(url, KEYS.admin)).status, 200); // the resolution is cached now
  sandboxes.lab!.faults.failNext(1000, 500);
  const partial = await get(url, KEYS.admin);
  assert.equal(partial.status, 200);
  assert.deepEqual(idsOf(partial.body), ANN.filter((id) => id.includes('ehr.')));
  assert.ok(outcomes(partial.body).length > 0 && outcomes(partial.body).every((i) => i.includes('source "lab" answered 500')), outcomes(partial.body).join('\n'));
  const strict = await get(url, KEYS.admin, { prefer: 'handling=strict' });
  assert.equal(strict.status, 502);
  assert.match(JSON.stringify(strict.body), /all-or-nothing/);
});

test('a source down during the resolution is named, never guessed around', async (t) => {
  const ehr = await sandbox(t, { open: true, seed: SEEDS.ehr });
  const down = await freePort();
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), lab: `fhir://127.0.0.1:${down}/fhir/` }, { callers, federatedName: 'all' }, Object.values(KEYS), IDENTITY);
  const res = await get(`${h.prefix}/all/Patient/ehr.e-ann/$everything`, KEYS.admin);
  assert.equal(res.status, 200);
  assert.deepEqual(idsOf(res.body), ANN.filter((id) => id.includes('ehr.')));
  assert.match(outcomes(res.body).join('\n'), /source "lab" could not be asked for the patient \(ERR_/);
  const strict = await get(`${h.prefix}/all/Patient/ehr.e-ann/$everything`, KEYS.admin, { prefer: 'handling=strict' });
  assert.equal(strict.status, 502);
});

test('a patient-bound caller gets its own patient only', async (t) => {
  const { h, sandboxes } = await setUp(t);
  const own = await get(`${h.prefix}/all/Patient/ehr.e-ann/$everything`, KEYS.ann);
  assert.equal(own.status, 200);
  // Bound to ehr's id, it may use ehr only: lab's record of Ann is not its to see.
  assert.deepEqual(idsOf(own.body), ANN.filter((id) => id.includes('ehr.')));
  const labBefore = sandboxes.lab!.stats.requests.total;
  const other = await get(`${h.prefix}/all/Patient/ehr.shared-1/$everything`, KEYS.ann);
  assert.equal(other.status, 403);
  assert.doesNotMatch(JSON.stringify(other.body), /e-bob/);
  const otherSource = await get(`${h.prefix}/all/Patient/lab.l-ann/$everything`, KEYS.ann);
  assert.equal(otherSource.status, 403);
  const byIdentifier = await get(`${h.prefix}/all/Patient/$everything?identifier=${encodeURIComponent(`${MRN}|200`)}`, KEYS.ann);
  assert.equal(byIdentifier.status, 403);
  assert.equal(sandboxes.lab!.stats.requests.total, labBefore, 'lab is never asked for this caller');
});

test('a page token made before the crosswalk changed is refused, never served for the old record', async (t) => {
  const { h, sandboxes } = await setUp(t, ['ehr', 'lab'], { identity: { systems: [MRN], ttlSeconds: 0 } });
  const first = await get(`${h.prefix}/all/Patient/ehr.e-ann/$everything?_count=2`, KEYS.admin);
  const next = first.body.link.find((l: any) => l.relation === 'next').url;
  // lab's Ann record now carries another MRN: lab's record of this patient is no longer l-ann.
  const labBase = sandboxes.lab!.fhirBase;
  const put = await fetch(`${labBase}/Patient/l-ann`, { method: 'PUT', headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify(patient('l-ann', '101')) });
  assert.ok(put.ok);
  const later = await get(next, KEYS.admin);
  assert.equal(later.status, 400);
  assert.match(later.body.issue[0].diagnostics, /changed since the first page/);
});

test('a source whose statement lists $everything is asked with its own operation; the federated statement lists it', async (t) => {
  const bundle = (entries: Resource[]) => ({ resourceType: 'Bundle', type: 'searchset', entry: entries.map((r) => ({ fullUrl: `x/${r.resourceType}/${r.id}`, resource: r })) });
  const native = await startServer(t, (req, res) => {
    const url = new URL(req.url!, 'http://x');
    url.pathname = decodeURIComponent(url.pathname);
    res.setHeader('content-type', 'application/fhir+json');
    if (url.pathname.endsWith('/metadata')) {
      res.end(JSON.stringify({ resourceType: 'CapabilityStatement', status: 'active', kind: 'instance', fhirVersion: '4.0.1', format: ['json'], rest: [{ mode: 'server', resource: [{ type: 'Patient', interaction: [{ code: 'read' }, { code: 'search-type' }], operation: [{ name: 'everything', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-everything' }] }] }] }));
    } else if (url.pathname.endsWith('/Patient') && url.searchParams.get('identifier') === `${MRN}|100`) {
      res.end(JSON.stringify(bundle([patient('n-ann', '100')])));
    } else if (url.pathname.endsWith('/Patient/n-ann/$everything')) {
      // The same Observation twice, and one of another patient: the facade shows one, and not the other.
      res.end(JSON.stringify(bundle([patient('n-ann', '100'), obs('n-1', 'n-ann'), obs('n-1', 'n-ann'), obs('n-other', 'someone-else')])));
    } else if (url.pathname.endsWith('/Patient')) {
      res.end(JSON.stringify(bundle([])));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] }));
    }
  });
  const ehr = await sandbox(t, { open: true, seed: SEEDS.ehr });
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), native: `fhir://${native.url.replace(/^http:\/\//, '')}/fhir/` }, { callers, federatedName: 'all' }, Object.values(KEYS), IDENTITY);
  const res = await get(`${h.prefix}/all/Patient/ehr.e-ann/$everything?_type=Patient,Observation&_count=50`, KEYS.admin);
  assert.equal(res.status, 200);
  assert.deepEqual(idsOf(res.body).filter((id) => id.includes('native.')), ['Observation/native.n-1', 'Patient/native.n-ann'], `${JSON.stringify(res.body)}\n${native.seen.map((x) => x.url).join('\n')}`);
  const asked = native.seen.map((s) => s.url).filter((u) => !u.includes('metadata') && !u.includes('identifier='));
  assert.deepEqual(asked.map((u) => decodeURIComponent(u.split('?')[0]!)), ['/fhir/Patient/n-ann/$everything'], asked.join('\n'));
  assert.deepEqual(Object.fromEntries(new URL(asked[0]!, 'http://x').searchParams), { _count: '50', _type: 'Patient,Observation' });
  const statement = await get(`${h.prefix}/all/metadata`, KEYS.admin);
  const patientEntry = statement.body.rest[0].resource.find((r: any) => r.type === 'Patient');
  assert.deepEqual(patientEntry.operation, [{ name: 'everything', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-everything' }]);
});

test('without identity settings, $everything by id is that source alone, and says so; by identifier it is refused', async (t) => {
  const { h } = await setUp(t, ['ehr', 'lab'], {});
  const byId = await get(`${h.prefix}/all/Patient/ehr.e-ann/$everything`, KEYS.admin);
  assert.equal(byId.status, 200);
  assert.deepEqual(idsOf(byId.body), ANN.filter((id) => id.includes('ehr.')));
  assert.match(outcomes(byId.body).join('\n'), /only source "ehr" was searched/);
  const byIdentifier = await get(`${h.prefix}/all/Patient/$everything?identifier=${encodeURIComponent(`${MRN}|100`)}`, KEYS.admin);
  assert.equal(byIdentifier.status, 400);
  assert.match(byIdentifier.body.issue[0].diagnostics, /needs the gateway's identity settings/);
});
