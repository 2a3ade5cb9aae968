// The facade in front of an independent FHIR server (Medplum's fhir-router and in-memory repository),
// driven by an unmodified FHIR client (fhir-kit-client) pointed at {prefix}/{source}.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, RESPONSE_KEY } from 'fhir-kit-client';
import type { FhirResponse } from 'fhir-kit-client';
import { facadeHarness } from '../support/facade-harness.js';
import { medplumServer } from '../support/medplum-server.js';

const KEY = 'writer-key-0123456789';
const callers = [{ name: 'writer', apiKey: KEY, sources: '*' as const, scopes: 'system/*.cruds' }];

async function setUp(t: import('node:test').TestContext) {
  const mp = await medplumServer(t);
  const h = await facadeHarness(t, { mp: `fhir://${mp.base.slice('http://'.length)}/` }, { callers }, [KEY, 's3cr3t-cookie', 'medplum-wrapper']);
  const client = new Client({ baseUrl: `${h.prefix}/mp`, customHeaders: { 'x-api-key': KEY } });
  return { mp, h, client };
}

const headerOf = (r: unknown, name: string) => ((r as FhirResponse)[RESPONSE_KEY] as Response | undefined)?.headers.get(name) ?? null;

test('an unmodified client creates, reads, vreads, updates, patches, searches and deletes through the facade', async (t) => {
  const { mp, h, client } = await setUp(t);
  const created = (await client.create({ resourceType: 'Patient', body: { resourceType: 'Patient', name: [{ family: 'Facade' }] } })) as Record<string, any>;
  assert.equal(created.resourceType, 'Patient');
  const id = created.id as string;
  const read = (await client.read({ resourceType: 'Patient', id })) as Record<string, any>;
  assert.equal(read.name[0].family, 'Facade');
  assert.match(headerOf(read, 'etag') ?? '', /^W\/"/);
  const v1 = read.meta.versionId as string;
  const updated = (await client.update({ resourceType: 'Patient', id, body: { ...read, resourceType: 'Patient', active: true }, options: { headers: { 'if-match': `W/"${v1}"` } } })) as Record<string, any>;
  assert.equal(updated.active, true);
  const vread = (await client.vread({ resourceType: 'Patient', id, version: v1 })) as Record<string, any>;
  assert.equal(vread.active, undefined, 'the first version');
  await assert.rejects(client.update({ resourceType: 'Patient', id, body: { ...read, resourceType: 'Patient', gender: 'other' }, options: { headers: { 'if-match': `W/"${v1}"` } } }), (e: any) => e.response.status === 412);
  const patched = (await client.patch({ resourceType: 'Patient', id, jsonPatch: [{ op: 'add', path: '/gender', value: 'female' }] })) as Record<string, any>;
  assert.equal(patched.gender, 'female');
  const found = (await client.search({ resourceType: 'Patient', searchParams: { name: 'Facade' } })) as Record<string, any>;
  assert.equal(found.entry.length, 1);
  assert.equal(found.entry[0].fullUrl, `${h.prefix}/mp/Patient/${id}`, 'fullUrl at the facade');
  const posted = await fetch(`${h.prefix}/mp/Patient/_search`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=Facade' });
  assert.equal(posted.status, 200);
  assert.equal(((await posted.json()) as any).entry[0].resource.id, id, 'POST _search');
  const history = (await client.history({ resourceType: 'Patient', id })) as Record<string, any>;
  assert.equal(history.type, 'history');
  await client.delete({ resourceType: 'Patient', id });
  await assert.rejects(client.read({ resourceType: 'Patient', id }), (e: any) => e.response.status === 404 || e.response.status === 410);
  assert.ok(mp.requests.every((r) => r.authorization === undefined), 'the caller\'s credentials never went upstream');
  assert.ok(h.answers.every((a) => a.headers['set-cookie'] === undefined && a.headers.server === undefined), 'no upstream cookie or server header came back');
});

test('conditional create (If-None-Exist) and conditional update pass through', async (t) => {
  const { mp, client } = await setUp(t);
  const body = { resourceType: 'Patient', identifier: [{ system: 'urn:mrn', value: 'c-1' }] };
  const first = (await client.create({ resourceType: 'Patient', body, options: { headers: { 'if-none-exist': 'identifier=urn:mrn|c-1' } } })) as Record<string, any>;
  const again = (await client.create({ resourceType: 'Patient', body, options: { headers: { 'if-none-exist': 'identifier=urn:mrn|c-1' } } })) as Record<string, any>;
  assert.equal(again.id, first.id, 'the second create found the first');
  const updated = (await client.update({ resourceType: 'Patient', searchParams: { identifier: 'urn:mrn|c-1' }, body: { ...body, active: false } })) as Record<string, any>;
  assert.equal(updated.id, first.id);
  assert.equal(updated.active, false);
  assert.ok(mp.requests.some((r) => r.line.startsWith('PUT /fhir/R4/Patient?identifier=')), 'the conditional update went up as one');
});

test('the client pages through several pages by the facade\'s page tokens, never seeing the upstream link', async (t) => {
  const { mp, h, client } = await setUp(t);
  for (let i = 0; i < 7; i++) await mp.repo.createResource({ resourceType: 'Observation', status: 'final', code: { text: `o${i}` } } as never);
  let page = (await client.search({ resourceType: 'Observation', searchParams: { _count: 3 } })) as any;
  const seen: string[] = [];
  for (;;) {
    seen.push(...page.entry.map((e: any) => e.resource.id));
    const next = page.link.find((l: any) => l.relation === 'next');
    if (next === undefined) break;
    assert.match(next.url, new RegExp(`^${h.prefix}/mp\\?_page_token=`));
    page = await client.nextPage({ bundle: page });
  }
  assert.equal(seen.length, 7);
  assert.equal(new Set(seen).size, 7, 'no entry twice');
});

test('batch and transaction go to the one source; metadata points at the facade', async (t) => {
  const { h, client } = await setUp(t);
  const tx = (await client.transaction({ body: { resourceType: 'Bundle', type: 'transaction', entry: [{ fullUrl: 'urn:uuid:1', resource: { resourceType: 'Patient', name: [{ family: 'Tx' }] }, request: { method: 'POST', url: 'Patient' } }] } })) as any;
  assert.equal(tx.type, 'transaction-response');
  const batch = (await client.batch({ body: { resourceType: 'Bundle', type: 'batch', entry: [{ request: { method: 'GET', url: 'Patient?name=Tx' } }] } })) as any;
  assert.equal(batch.type, 'batch-response');
  const cs = (await client.capabilityStatement()) as any;
  assert.equal(cs.implementation.url, `${h.prefix}/mp`);
  assert.equal(cs.url, `${h.prefix}/mp/metadata`);
});
