// The federated base: one search across every source the caller may search, entries tagged with their
// source (ids `<source>.<id>`), `_count` per merged page, `_sort` merged, a composite page token, `total` only when every source
// gave one, a failing source as an OperationOutcome entry (or all or nothing on request); no writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Client } from 'fhir-kit-client';
import { facadeHarness } from '../support/facade-harness.js';
import { medplumServer } from '../support/medplum-server.js';
import { sandbox } from '../support/sandbox.js';

const KEY = 'federated-key-0123456789';

async function setUp(t: TestContext) {
  const ehr = await sandbox(t, { open: true });
  const mp = await medplumServer(t);
  for (const [family, birthDate] of [['Zed', '1950-01-01'], ['Amy', '1999-01-01'], ['Kim', '1980-06-06']]) await mp.repo.createResource({ resourceType: 'Patient', name: [{ family }], birthDate } as never);
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), mp: `fhir://${mp.base.slice('http://'.length)}/` }, {
    callers: [{ name: 'fed', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }, { name: 'ehr-only', apiKey: 'ehr-only-key-0123456789', sources: ['ehr'], scopes: 'system/*.rs' }],
  }, [KEY, 's3cr3t-cookie']);
  const client = new Client({ baseUrl: `${h.prefix}/all`, customHeaders: { 'x-api-key': KEY } });
  return { ehr, mp, h, client };
}

test('an unmodified client searches the federated base across two sources and pages through the merge', async (t) => {
  const { h, client } = await setUp(t);
  let page = (await client.search({ resourceType: 'Patient', searchParams: { _count: 3 } })) as any;
  assert.equal(page.total, 8, 'five in the sandbox, three in Medplum: both gave a total');
  const seen: any[] = [];
  for (;;) {
    assert.ok(page.entry.length <= 3, '_count per merged page');
    seen.push(...page.entry);
    const next = page.link.find((l: any) => l.relation === 'next');
    if (next === undefined) break;
    assert.match(next.url, new RegExp(`^${h.prefix}/all\\?_page_token=`));
    page = await client.nextPage({ bundle: page });
  }
  assert.equal(seen.length, 8);
  assert.equal(new Set(seen.map((e) => e.fullUrl)).size, 8);
  for (const e of seen) {
    const source = e.resource.meta.source as string;
    assert.ok(source === `${h.prefix}/ehr` || source === `${h.prefix}/mp`, source);
    assert.ok(e.resource.id.startsWith(`${source.slice(h.prefix.length + 1)}.`), 'the id names its source');
    assert.equal(e.fullUrl, `${h.prefix}/all/Patient/${e.resource.id}`, 'fullUrl at the federated base, agreeing with the id');
  }
  const one = seen.find((e) => e.resource.meta.source.endsWith('/mp'));
  const read = await fetch(one.fullUrl, { headers: { 'x-api-key': KEY } });
  assert.equal(read.status, 200, 'the fullUrl reads through the federated base');
  assert.deepEqual(await read.json(), one.resource);
  const atSource = await fetch(one.link[0].url, { headers: { 'x-api-key': KEY } });
  assert.equal(((await atSource.json()) as any).id, one.resource.id.slice('mp.'.length), 'the alternate link is the source base\'s');
});

test('_sort is merged across sources when every source sorts', async (t) => {
  const { client } = await setUp(t);
  const page = (await client.search({ resourceType: 'Patient', searchParams: { _sort: 'birthdate', _count: 20 } })) as any;
  const dates = page.entry.map((e: any) => e.resource.birthDate);
  assert.deepEqual(dates, [...dates].sort());
  assert.ok(new Set(page.entry.map((e: any) => e.resource.meta.source)).size === 2, 'both sources interleaved');
});

test('a failing source becomes an OperationOutcome entry; all-or-nothing answers 502; writes are never federated', async (t) => {
  const { mp, h } = await setUp(t);
  mp.failing = true;
  const res = await fetch(`${h.prefix}/all/Patient?_count=50`, { headers: { 'x-api-key': KEY } });
  assert.equal(res.status, 200);
  const bundle = (await res.json()) as any;
  const outcome = bundle.entry.filter((e: any) => e.search?.mode === 'outcome');
  assert.equal(outcome.length, 1);
  assert.equal(outcome[0].resource.resourceType, 'OperationOutcome');
  assert.match(outcome[0].resource.issue[0].diagnostics, /source "mp" answered 503/);
  assert.equal(bundle.entry.filter((e: any) => e.search?.mode !== 'outcome').length, 5, 'the sandbox\'s patients still');
  assert.equal(bundle.total, undefined, 'no total when a source gave none');
  const strict = await fetch(`${h.prefix}/all/Patient`, { headers: { 'x-api-key': KEY, prefer: 'handling=strict' } });
  assert.equal(strict.status, 502);
  await strict.arrayBuffer();
  const write = await fetch(`${h.prefix}/all/Patient`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/fhir+json' }, body: '{"resourceType":"Patient"}' });
  assert.equal(write.status, 405);
  await write.arrayBuffer();
});

test('the federated base searches only the sources the caller may use', async (t) => {
  const { mp, h } = await setUp(t);
  const before = mp.requests.length;
  const bundle = (await (await fetch(`${h.prefix}/all/Patient`, { headers: { 'x-api-key': 'ehr-only-key-0123456789' } })).json()) as any;
  assert.ok(bundle.entry.every((e: any) => e.resource.meta.source.endsWith('/ehr')));
  assert.equal(mp.requests.length, before, 'the other source was not asked');
});
