// A page token is honoured on every path a client sends it on (the base, the type path, `_search` with the
// token in the query or the form body), or refused 400 with nothing sent upstream: never dropped. Driven by
// MedplumClient's own `searchResourcePages` (which sends the token on the type path, with `_count=1000`) and
// fhir-kit-client's `nextPage` (which follows the link as given), at a source base and at the federated base.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { MedplumClient } from '@medplum/core';
import { Client } from 'fhir-kit-client';
import { facadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';

const KEY = 'paging-key-0123456789';
const COUNTS = { ehr: 23, lab: 17 };

/** `n` Observations with ids `<prefix>-o-<i>`. */
const observations = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ resourceType: 'Observation', id: `${prefix}-o-${i}`, status: 'final', code: { text: `${prefix} ${i}` } }));

async function setUp(t: TestContext) {
  const ehr = await sandbox(t, { open: true, seed: [{ resourceType: 'Patient', id: 'p1' }, ...observations('ehr', COUNTS.ehr)] as never });
  const lab = await sandbox(t, { open: true, seed: observations('lab', COUNTS.lab) as never });
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), lab: lab.connectionString() }, { callers: [{ name: 'pager', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }] }, [KEY]);
  const upstreamRequests = () => ehr.stats.requests.total + lab.stats.requests.total;
  return { ehr, lab, h, upstreamRequests };
}

/** What the sandboxes hold, asked of them directly: the ids the facade must show once each. */
async function heldIds(base: string): Promise<string[]> {
  const bundle = (await (await fetch(`${base}/Observation?_count=1000`)).json()) as any;
  return bundle.entry.map((e: any) => e.resource.id as string);
}

/** A MedplumClient at `{prefix}/{path}`, sending the caller's key. */
function medplum(prefix: string, path: string): MedplumClient {
  const url = new URL(prefix);
  const keyed = (input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': KEY } });
  return new MedplumClient({ baseUrl: `${url.origin}/`, fhirUrlPath: `${url.pathname.slice(1)}/${path}`, fetch: keyed, cacheTime: 0 });
}

/** Asserts `seen` holds each of `expected` exactly once. */
function exactlyOnce(seen: readonly string[], expected: readonly string[]): void {
  assert.equal(new Set(seen).size, seen.length, `no resource twice (${seen.length} seen, ${new Set(seen).size} distinct)`);
  assert.deepEqual([...seen].sort(), [...expected].sort(), 'every resource once');
}

/** The ids fhir-kit-client's `nextPage` sees at `{prefix}/{path}`, following each next link as given. */
async function fhirKitIds(prefix: string, path: string): Promise<string[]> {
  const client = new Client({ baseUrl: `${prefix}/${path}`, customHeaders: { 'x-api-key': KEY } });
  let page = (await client.search({ resourceType: 'Observation', searchParams: { _count: 6 } })) as any;
  const seen: string[] = [];
  for (;;) {
    assert.ok((page.entry ?? []).length <= 6);
    seen.push(...(page.entry ?? []).map((e: any) => e.resource.id));
    if (!page.link.some((l: any) => l.relation === 'next')) return seen;
    page = await client.nextPage({ bundle: page });
  }
}

/** The ids MedplumClient's `searchResourcePages` sees at `{prefix}/{path}` (it sends each token on the type path, with `_count=1000`). */
async function medplumIds(prefix: string, path: string): Promise<string[]> {
  const seen: string[] = [];
  for await (const page of medplum(prefix, path).searchResourcePages('Observation', { _count: 5 })) {
    assert.ok(page.length <= 5, 'the page size of the first search holds (the _count=1000 beside the token is not a new search)');
    seen.push(...page.map((o) => o.id));
  }
  return seen;
}

test('MedplumClient\'s searchResourcePages and fhir-kit-client\'s nextPage see every Observation of a source base once', async (t) => {
  const { ehr, h } = await setUp(t);
  const held = await heldIds(ehr.fhirBase);
  assert.equal(held.length, COUNTS.ehr);
  exactlyOnce(await medplumIds(h.prefix, 'ehr'), held);
  assert.ok(h.answers.some((a) => /^GET \/fhir\/ehr\/Observation\?_page_token=[^&]+&_count=1000$/.test(a.line)), 'MedplumClient did send the token on the type path');
  exactlyOnce(await fhirKitIds(h.prefix, 'ehr'), held);
});

test('MedplumClient\'s searchResourcePages and fhir-kit-client\'s nextPage see every Observation of both sources once at the federated base', async (t) => {
  const { ehr, lab, h } = await setUp(t);
  const held = [...(await heldIds(ehr.fhirBase)).map((id) => `ehr.${id}`), ...(await heldIds(lab.fhirBase)).map((id) => `lab.${id}`)];
  assert.equal(held.length, COUNTS.ehr + COUNTS.lab);
  exactlyOnce(await medplumIds(h.prefix, 'all'), held);
  assert.ok(h.answers.some((a) => /^GET \/fhir\/all\/Observation\?_page_token=[^&]+&_count=1000$/.test(a.line)));
  exactlyOnce(await fhirKitIds(h.prefix, 'all'), held);
});

/** The `_page_token` of a first page's next link at `{prefix}/{path}/Observation`. */
async function nextToken(prefix: string, path: string): Promise<string> {
  const first = (await (await fetch(`${prefix}/${path}/Observation?_count=4`, { headers: { 'x-api-key': KEY } })).json()) as any;
  return new URL(first.link.find((l: any) => l.relation === 'next').url).searchParams.get('_page_token')!;
}

for (const path of ['ehr', 'all']) {
  test(`at ${path === 'ehr' ? 'a source base' : 'the federated base'}, the token is honoured on the base, the type path and _search (query or form body)`, async (t) => {
    const { h } = await setUp(t);
    const token = await nextToken(h.prefix, path);
    const form = { 'x-api-key': KEY, 'content-type': 'application/x-www-form-urlencoded' };
    const ways: [string, RequestInit][] = [
      [`${h.prefix}/${path}?_page_token=${token}`, { headers: { 'x-api-key': KEY } }],
      [`${h.prefix}/${path}/Observation?_page_token=${token}`, { headers: { 'x-api-key': KEY } }],
      [`${h.prefix}/${path}/Observation?_page_token=${token}&_count=1000`, { headers: { 'x-api-key': KEY } }],
      [`${h.prefix}/${path}/Observation/_search`, { method: 'POST', headers: form, body: `_page_token=${token}` }],
      [`${h.prefix}/${path}/Observation/_search?_page_token=${token}`, { method: 'POST', headers: form, body: '' }],
      [`${h.prefix}/${path}/_search`, { method: 'POST', headers: form, body: `_page_token=${token}` }],
    ];
    const pages: string[] = [];
    for (const [url, init] of ways) {
      const res = await fetch(url, init);
      const body = (await res.json()) as any;
      assert.equal(res.status, 200, `${init.method ?? 'GET'} ${url.slice(h.prefix.length)}: ${JSON.stringify(body.issue ?? '')}`);
      assert.equal(body.entry.length, 4, 'the second page, of the first search\'s size');
      pages.push(JSON.stringify(body.entry.map((e: any) => e.resource.id)));
    }
    assert.equal(new Set(pages).size, 1, 'every way answers the same page');
    const first = (await (await fetch(`${h.prefix}/${path}/Observation?_count=4`, { headers: { 'x-api-key': KEY } })).json()) as any;
    assert.notEqual(JSON.stringify(first.entry.map((e: any) => e.resource.id)), pages[0], 'and it is not the first page');
  });

  test(`at ${path === 'ehr' ? 'a source base' : 'the federated base'}, a token that cannot be honoured is refused 400 with nothing sent upstream`, async (t) => {
    const { h, upstreamRequests } = await setUp(t);
    const token = await nextToken(h.prefix, path);
    const otherBases = await nextToken(h.prefix, path === 'ehr' ? 'all' : 'ehr');
    const before = upstreamRequests();
    const form = { 'x-api-key': KEY, 'content-type': 'application/x-www-form-urlencoded' };
    const refused: [string, RequestInit, RegExp][] = [
      [`${h.prefix}/${path}/Observation?_page_token=garbage`, {}, /not valid \(malformed\)/],
      [`${h.prefix}/${path}/Observation?_page_token=garbage&_count=1000`, {}, /not valid/],
      [`${h.prefix}/${path}/Patient?_page_token=${token}`, {}, /for a search of Observation, not of Patient/],
      [`${h.prefix}/${path}/Observation?_page_token=${token}&code=x`, {}, /without "code"/],
      [`${h.prefix}/${path}/Observation?_page_token=${token}&_page_token=${token}`, {}, /more than once/],
      [`${h.prefix}/${path}/Observation/_search`, { method: 'POST', headers: form, body: '_page_token=garbage' }, /not valid/],
      [`${h.prefix}/${path}/Patient/_search`, { method: 'POST', headers: form, body: `_page_token=${token}` }, /not of Patient/],
      [`${h.prefix}/${path}/_search`, { method: 'POST', headers: form, body: 'a=b&_page_token=garbage' }, /not valid|without "a"/],
      [`${h.prefix}/${path}?_page_token=${otherBases}`, {}, path === 'ehr' ? /for the federated base, not this one/ : /for a source base, not this one/],
    ];
    if (path === 'ehr') {
      refused.push([`${h.prefix}/ehr/Patient/p1?_page_token=${token}`, {}, /taken only by a search/]);
      refused.push([`${h.prefix}/ehr/Observation/_history?_page_token=${token}`, {}, /taken only by a search/]);
    }
    for (const [url, init, why] of refused) {
      const res = await fetch(url, { ...init, headers: { 'x-api-key': KEY, ...(init.headers as Record<string, string>) } });
      const body = (await res.json()) as any;
      assert.equal(res.status, 400, `${init.method ?? 'GET'} ${url.slice(h.prefix.length)} answered ${res.status}`);
      assert.equal(body.resourceType, 'OperationOutcome');
      assert.match(body.issue[0].diagnostics, why);
    }
    assert.equal(upstreamRequests(), before, 'none of them reached a source');
  });
}
