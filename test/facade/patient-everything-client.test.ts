// Patient/$everything at the federated base, driven by MedplumClient (`readPatientEverything`, then `get` of each
// `next` link): two sandboxes holding the same person under different local ids (shared MRN) and ten resources
// each, every page followed; what the caller's scopes do not read is never shown, on the compartment-search path
// and on a source's own $everything; a patient-bound caller asking by its own identifier gets its own record.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { MedplumClient } from '@medplum/core';
import type { APIKeyCaller } from '../../src/facade/index.js';
import { facadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';
import { startServer } from '../support/test-server.js';

const MRN = 'http://hospital.example.org/mrn';
const KEYS = { all: 'client-all-key-0123456789', narrow: 'client-narrow-key-012345678', dana: 'client-dana-key-0123456789', danaId: 'client-dana-identity-key-0123' };
const IDENTITY = { identity: { systems: [MRN], ttlSeconds: 300 } };

const callers: APIKeyCaller[] = [
  { name: 'all', apiKey: KEYS.all, sources: '*', scopes: 'system/*.rs', operations: ['$everything'] },
  // Reads Patients and Observations only: Conditions and Encounters are not its to see.
  { name: 'narrow', apiKey: KEYS.narrow, sources: '*', scopes: 'system/Patient.rs system/Observation.rs', operations: ['$everything'] },
  { name: 'dana', apiKey: KEYS.dana, sources: ['ehr'], scopes: 'patient/*.rs', patient: 'e-dana', operations: ['$everything'] },
  // Bound by identity: Dana in every source, under each source's own local id.
  { name: 'dana-identity', apiKey: KEYS.danaId, sources: '*', scopes: 'patient/*.rs', patient: { identifier: `${MRN}|7` }, operations: ['$everything'] },
];

/** Dana (MRN 7) as `<prefix>-dana`, with 4 Observations, 3 Conditions and 3 Encounters; Eve (MRN 8) with one Observation. */
function seed(prefix: string): Record<string, unknown>[] {
  const dana = `${prefix}-dana`;
  const of = (type: string, n: number, extra: Record<string, unknown>) => Array.from({ length: n }, (_, i) => ({ resourceType: type, id: `${prefix}-${type.toLowerCase()}-${i}`, ...extra }));
  return [
    { resourceType: 'Patient', id: dana, identifier: [{ system: MRN, value: '7' }] },
    { resourceType: 'Patient', id: `${prefix}-eve`, identifier: [{ system: MRN, value: '8' }] },
    ...of('Observation', 4, { status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${dana}` } }),
    ...of('Condition', 3, { subject: { reference: `Patient/${dana}` } }),
    ...of('Encounter', 3, { status: 'finished', class: { code: 'AMB' }, subject: { reference: `Patient/${dana}` } }),
    { resourceType: 'Observation', id: `${prefix}-eve-obs`, status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${prefix}-eve` } },
  ];
}

/** Every id Dana's record holds at the federated base, for the types `types` (all when not given). */
function danaIds(types?: readonly string[]): string[] {
  return ['e', 'l'].flatMap((p) => {
    const source = p === 'e' ? 'ehr' : 'lab';
    return seed(p).filter((r) => !String(r.id).includes('eve')).filter((r) => types === undefined || types.includes(String(r.resourceType))).map((r) => `${String(r.resourceType)}/${source}.${String(r.id)}`);
  }).sort();
}

async function setUp(t: TestContext) {
  const ehr = await sandbox(t, { open: true, seed: seed('e') as never });
  const lab = await sandbox(t, { open: true, seed: seed('l') as never });
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), lab: lab.connectionString() }, { callers, federatedName: 'all' }, Object.values(KEYS), IDENTITY);
  return { h, ehr, lab };
}

/** A MedplumClient at the federated base `{prefix}/all`, sending `key`. */
function medplum(prefix: string, key: string): MedplumClient {
  const url = new URL(prefix);
  const keyed = (input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': key } });
  return new MedplumClient({ baseUrl: `${url.origin}/`, fhirUrlPath: `${url.pathname.slice(1)}/all`, fetch: keyed, cacheTime: 0 });
}

/** Every page of `first` and those its `next` links lead to (at most 50), fetched by `client`. */
async function allPages(client: MedplumClient, first: Record<string, any>): Promise<Record<string, any>[]> {
  const pages = [first];
  for (let next = first.link?.find((l: any) => l.relation === 'next')?.url; next !== undefined; next = pages.at(-1)!.link?.find((l: any) => l.relation === 'next')?.url) {
    assert.ok(pages.length < 50, 'the paging ends');
    pages.push(await client.get(next));
  }
  return pages;
}

const matchesOf = (pages: readonly Record<string, any>[]) => pages.flatMap((p) => (p.entry ?? []).filter((e: any) => e.search?.mode !== 'outcome'));
const idsOf = (entries: readonly any[]) => entries.map((e) => `${e.resource.resourceType}/${e.resource.id}`);

test('MedplumClient reads $everything and follows every next link: both sources\' records of Dana once each, federated, linked, _count per page', async (t) => {
  const { h } = await setUp(t);
  const client = medplum(h.prefix, KEYS.all);
  const first = (await client.readPatientEverything('ehr.e-dana')) as unknown as Record<string, any>;
  const byCount = (await client.get(`${h.prefix}/all/Patient/ehr.e-dana/$everything?_count=4`)) as Record<string, any>;
  for (const pages of [await allPages(client, first), await allPages(client, byCount)]) {
    const entries = matchesOf(pages);
    const ids = idsOf(entries);
    assert.equal(new Set(ids).size, ids.length, `no resource twice: ${ids.join(', ')}`);
    assert.deepEqual([...ids].sort(), danaIds());
    for (const e of entries) assert.equal(e.fullUrl, `${h.prefix}/all/${e.resource.resourceType}/${e.resource.id}`, 'fullUrl at the federated base');
    const lab = entries.find((e) => e.resource.id === 'lab.l-dana').resource;
    assert.deepEqual(lab.link, [{ other: { reference: 'Patient/ehr.e-dana' }, type: 'seealso' }]);
    assert.equal(entries.find((e) => e.resource.id === 'lab.l-observation-0').resource.subject.reference, 'Patient/lab.l-dana');
    assert.equal(pages.flatMap((p) => p.entry ?? []).filter((e: any) => e.search?.mode === 'outcome').length, 0, 'no source failed');
  }
  const counted = await allPages(client, byCount);
  assert.ok(counted.length >= Math.ceil(danaIds().length / 4), `${counted.length} pages of at most 4`);
  for (const page of counted) assert.ok(matchesOf([page]).length <= 4, 'a page holds at most _count entries');
});

test('_type and _since narrow what MedplumClient pages through', async (t) => {
  const { h } = await setUp(t);
  const client = medplum(h.prefix, KEYS.all);
  const identifier = encodeURIComponent(`${MRN}|7`);
  const typed = await allPages(client, await client.get(`${h.prefix}/all/Patient/$everything?identifier=${identifier}&_type=Condition,Encounter&_count=5`));
  assert.deepEqual(idsOf(matchesOf(typed)).sort(), danaIds(['Condition', 'Encounter']));
  const future = await allPages(client, await client.get(`${h.prefix}/all/Patient/$everything?identifier=${identifier}&_since=2999-01-01T00:00:00Z`));
  assert.deepEqual(idsOf(matchesOf(future)), []);
});

test('what the caller\'s scopes do not read is never shown, from the compartment searches or from a source\'s own $everything', async (t) => {
  const { h } = await setUp(t);
  const client = medplum(h.prefix, KEYS.narrow);
  const pages = await allPages(client, await client.get(`${h.prefix}/all/Patient/ehr.e-dana/$everything?_count=3`));
  assert.deepEqual(idsOf(matchesOf(pages)).sort(), danaIds(['Patient', 'Observation']));
  // A source answering $everything itself sends Conditions too: the facade drops them.
  const native = await startServer(t, (req, res) => {
    const url = new URL(req.url!, 'http://x');
    const path = decodeURIComponent(url.pathname);
    res.setHeader('content-type', 'application/fhir+json');
    const bundle = (entries: Record<string, unknown>[]) => JSON.stringify({ resourceType: 'Bundle', type: 'searchset', entry: entries.map((r) => ({ fullUrl: `http://x/fhir/${String(r.resourceType)}/${String(r.id)}`, resource: r })) });
    const danaN = { resourceType: 'Patient', id: 'n-dana', identifier: [{ system: MRN, value: '7' }] };
    if (path.endsWith('/metadata')) {
      res.end(JSON.stringify({ resourceType: 'CapabilityStatement', status: 'active', kind: 'instance', fhirVersion: '4.0.1', format: ['json'], rest: [{ mode: 'server', resource: [{ type: 'Patient', interaction: [{ code: 'read' }, { code: 'search-type' }], operation: [{ name: 'everything', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-everything' }] }] }] }));
    } else if (path.endsWith('/Patient/n-dana/$everything')) {
      res.end(bundle([danaN, { resourceType: 'Observation', id: 'n-obs', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/n-dana' } }, { resourceType: 'Condition', id: 'n-cond', subject: { reference: 'Patient/n-dana' } }]));
    } else if (path.endsWith('/Patient')) {
      res.end(bundle(url.searchParams.get('identifier') === `${MRN}|7` ? [danaN] : []));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] }));
    }
  });
  const ehr2 = await sandbox(t, { open: true, seed: seed('e') as never });
  const h2 = await facadeHarness(t, { ehr: ehr2.connectionString(), native: `fhir://${native.url.replace(/^http:\/\//, '')}/fhir/` }, { callers, federatedName: 'all' }, Object.values(KEYS), IDENTITY);
  const narrow = matchesOf(await allPages(medplum(h2.prefix, KEYS.narrow), await medplum(h2.prefix, KEYS.narrow).get(`${h2.prefix}/all/Patient/ehr.e-dana/$everything`)));
  assert.deepEqual(idsOf(narrow).filter((id) => id.includes('native.')).sort(), ['Observation/native.n-obs', 'Patient/native.n-dana']);
  assert.ok(native.seen.some((s) => decodeURIComponent(s.url).includes('/Patient/n-dana/$everything')), 'the source\'s own $everything was asked');
  const wide = matchesOf(await allPages(medplum(h2.prefix, KEYS.all), await medplum(h2.prefix, KEYS.all).get(`${h2.prefix}/all/Patient/ehr.e-dana/$everything`)));
  assert.ok(idsOf(wide).includes('Condition/native.n-cond'), 'a caller reading Conditions sees it');
});

test('a patient-bound caller asking by its own identifier gets its own record at the one source it may use; another\'s identifier is refused', async (t) => {
  const { h, lab } = await setUp(t);
  const client = medplum(h.prefix, KEYS.dana);
  const labBefore = lab.stats.requests.total;
  const own = matchesOf(await allPages(client, await client.get(`${h.prefix}/all/Patient/$everything?identifier=${encodeURIComponent(`${MRN}|7`)}&_count=5`)));
  assert.deepEqual(idsOf(own).sort(), danaIds().filter((id) => id.includes('ehr.')));
  assert.equal(lab.stats.requests.total, labBefore, 'lab is not this caller\'s source: never asked');
  for (const other of [`Patient/$everything?identifier=${encodeURIComponent(`${MRN}|8`)}`, 'Patient/ehr.e-eve/$everything']) {
    const res = await fetch(`${h.prefix}/all/${other}`, { headers: { 'x-api-key': KEYS.dana } });
    assert.ok(res.status === 403 || res.status === 404, `${other}: ${res.status}`);
    assert.doesNotMatch(await res.text(), /eve-obs/);
  }
});

test('when no source answers, $everything fails 502 naming each source (never an empty record that looks whole); one source down is an outcome entry', async (t) => {
  const { h, ehr, lab } = await setUp(t);
  const url = `${h.prefix}/all/Patient/ehr.e-dana/$everything`;
  const client = medplum(h.prefix, KEYS.all);
  assert.ok(matchesOf([await client.get(url)]).length > 0); // the resolution is cached now
  lab.faults.failNext(1000, 500);
  const partial = await client.get(url);
  assert.deepEqual(idsOf(matchesOf([partial])).sort(), danaIds().filter((id) => id.includes('ehr.')));
  assert.match(JSON.stringify(partial.entry.filter((e: any) => e.search?.mode === 'outcome')), /source \\"lab\\" answered 500/);
  ehr.faults.failNext(1000, 500);
  const res = await fetch(url, { headers: { 'x-api-key': KEYS.all } });
  assert.equal(res.status, 502);
  const body = (await res.json()) as any;
  assert.equal(body.resourceType, 'OperationOutcome');
  const said = body.issue.map((i: any) => String(i.diagnostics)).join('\n');
  assert.match(said, /no source answered/);
  assert.match(said, /source "ehr" answered 500/);
  assert.match(said, /source "lab" answered 500/);
});

test('a page token of $everything is the caller\'s own and for $everything only: another caller, or the federated search route, gets nothing of it', async (t) => {
  const { h } = await setUp(t);
  const first = (await (await fetch(`${h.prefix}/all/Patient/ehr.e-dana/$everything?_count=2`, { headers: { 'x-api-key': KEYS.dana } })).json()) as any;
  const next = String(first.link.find((l: any) => l.relation === 'next').url);
  const token = new URL(next).searchParams.get('_page_token')!;
  const tries = [
    [next, KEYS.narrow],
    [next, KEYS.all],
    [`${h.prefix}/all?_page_token=${token}`, KEYS.all],
    [`${h.prefix}/all/Observation?_page_token=${token}`, KEYS.all],
    [`${h.prefix}/all?_page_token=${token}`, KEYS.dana],
    [`${h.prefix}/all/Observation?_page_token=${token}`, KEYS.dana],
  ] as const;
  for (const [url, key] of tries) {
    const res = await fetch(url, { headers: { 'x-api-key': key } });
    const text = await res.text();
    assert.equal(res.status, 400, `${url.replace(h.prefix, '')}: ${text}`);
    assert.doesNotMatch(text, /e-observation|e-condition|e-eve/);
  }
});

test('with three sources each source\'s Patient links to the two others', async (t) => {
  const [ehr, lab, research] = await Promise.all(['e', 'l', 'r'].map((p) => sandbox(t, { open: true, seed: seed(p) as never })));
  const h = await facadeHarness(t, { ehr: ehr!.connectionString(), lab: lab!.connectionString(), research: research!.connectionString() }, { callers, federatedName: 'all' }, Object.values(KEYS), IDENTITY);
  const client = medplum(h.prefix, KEYS.all);
  const entries = matchesOf(await allPages(client, await client.get(`${h.prefix}/all/Patient/$everything?identifier=${encodeURIComponent(`${MRN}|7`)}&_type=Patient`)));
  const links = Object.fromEntries(entries.map((e) => [e.resource.id, (e.resource.link ?? []).map((l: any) => `${l.type} ${l.other.reference}`).sort()]));
  assert.deepEqual(links, {
    'ehr.e-dana': ['seealso Patient/lab.l-dana', 'seealso Patient/research.r-dana'],
    'lab.l-dana': ['seealso Patient/ehr.e-dana', 'seealso Patient/research.r-dana'],
    'research.r-dana': ['seealso Patient/ehr.e-dana', 'seealso Patient/lab.l-dana'],
  });
});

test('a caller bound by identity gets its own patient\'s $everything across every source, by either source\'s id or by identifier; another person is refused', async (t) => {
  const { h } = await setUp(t);
  const client = medplum(h.prefix, KEYS.danaId);
  for (const first of ['Patient/ehr.e-dana/$everything?_count=4', 'Patient/lab.l-dana/$everything?_count=4', `Patient/$everything?identifier=${encodeURIComponent(`${MRN}|7`)}&_count=4`]) {
    const pages = await allPages(client, await client.get(`${h.prefix}/all/${first}`));
    assert.ok(pages.length > 1, `${first}: paged`);
    const ids = idsOf(matchesOf(pages));
    assert.equal(new Set(ids).size, ids.length, `${first}: no resource twice`);
    assert.deepEqual([...ids].sort(), danaIds(), first);
  }
  for (const other of [`Patient/$everything?identifier=${encodeURIComponent(`${MRN}|8`)}`, 'Patient/ehr.e-eve/$everything', 'Patient/lab.l-eve/$everything']) {
    const res = await fetch(`${h.prefix}/all/${other}`, { headers: { 'x-api-key': KEYS.danaId } });
    const text = await res.text();
    assert.ok(res.status === 403 || res.status === 404, `${other}: ${res.status} ${text}`);
    assert.doesNotMatch(text, /eve-obs|"Observation"/);
  }
});
