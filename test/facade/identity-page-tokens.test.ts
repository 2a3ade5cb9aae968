// Page tokens minted before the crosswalk changed (issue 35, "page tokens minted before the crosswalk
// changed"): a token carries the local id of the caller's patient at each source it was made for; when
// the patient now resolves to another record there, the page is refused, never served for the old id.
// Tokens whose crosswalk stands are followed as before (fhir-kit-client's nextPage).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Client } from 'fhir-kit-client';
import type { APIKeyCaller } from '../../src/facade/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { facadeHarness } from '../support/facade-harness.js';
import { MRN } from '../gateway/identity/fixtures.js';
import { ANN, fourSources, get, ids } from './identity-fixtures.js';

const KEY = 'ann-portal-key-0123456789';
const callers: APIKeyCaller[] = [{ name: 'ann', apiKey: KEY, sources: ['ehr', 'lab'], scopes: 'patient/*.rs', patient: { identifier: ANN } }];

async function put(sb: Sandbox, resource: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sb.fhirBase}/${String(resource.resourceType)}/${String(resource.id)}`, { method: 'PUT', headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify(resource) });
  assert.ok(res.status < 300, `PUT ${String(resource.id)}: ${res.status}`);
}

const obs = (id: string, subject: string) => ({ resourceType: 'Observation', id, status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${subject}` } });

/** ehr and lab with two Observations of Ann each; resolutions not cached (ttlSeconds 0), so each request sees the crosswalk as it is. */
async function setUp(t: TestContext) {
  const { sandboxes, sources, identity } = await fourSources(t);
  await put(sandboxes.ehr!, obs('e-ann-obs-2', 'e-ann'));
  await put(sandboxes.lab!, obs('l-ann-obs-2', 'l-ann'));
  const h = await facadeHarness(t, { ehr: sources.ehr!, lab: sources.lab! }, { callers }, [KEY], { identity: { ...identity, authorities: { [MRN]: ['ehr', 'lab'] }, ttlSeconds: 0 } });
  /** Lab's record l-ann is found to be another person (its MRN corrected); Ann is l-ann-new there now. */
  const moveAnn = async () => {
    await put(sandboxes.lab!, { resourceType: 'Patient', id: 'l-ann', identifier: [{ system: MRN, value: '999' }] });
    await put(sandboxes.lab!, { resourceType: 'Patient', id: 'l-ann-new', identifier: [{ system: MRN, value: '100' }] });
  };
  return { h, moveAnn };
}

test('a source base\'s page token made for lab\'s old record of the patient is refused once the crosswalk says another', async (t) => {
  const { h, moveAnn } = await setUp(t);
  const client = new Client({ baseUrl: `${h.prefix}/lab`, customHeaders: { 'x-api-key': KEY } });
  const walked: string[] = [];
  let page = (await client.search({ resourceType: 'Observation', searchParams: { _count: 1 } })) as any;
  while (page !== undefined) {
    walked.push(...ids(page));
    page = await client.nextPage({ bundle: page });
  }
  assert.deepEqual(walked.sort(), ['Observation/l-ann-obs', 'Observation/l-ann-obs-2'], 'while the crosswalk stands, pages are followed');

  const first = await get(`${h.prefix}/lab/Observation?_count=1`, KEY);
  const next = first.body.link.find((l: any) => l.relation === 'next').url as string;
  await moveAnn();
  const refused = await get(next, KEY);
  assert.equal(refused.status, 400);
  assert.match(refused.body.issue[0].diagnostics, /page token was made for another record of the patient in source "lab".*search again/);
  assert.ok(!JSON.stringify(refused.body).includes('l-ann-obs'), 'nothing of the old record');
  assert.deepEqual(ids((await get(`${h.prefix}/lab/Observation?_count=1`, KEY)).body), [], 'searched again: Ann\'s new lab record, which holds no Observation');
});

test('a federated page token is refused when any source\'s local id of the patient changed since it was made', async (t) => {
  const { h, moveAnn } = await setUp(t);
  const first = await get(`${h.prefix}/all/Observation?_count=1`, KEY);
  assert.equal(first.status, 200);
  assert.equal(ids(first.body).length, 1);
  const next = first.body.link.find((l: any) => l.relation === 'next').url as string;
  const second = await get(next, KEY);
  assert.equal(second.status, 200, 'the crosswalk stands: the page is served');
  const third = second.body.link.find((l: any) => l.relation === 'next').url as string;
  await moveAnn();
  const refused = await get(third, KEY);
  assert.equal(refused.status, 400);
  assert.match(refused.body.issue[0].diagnostics, /another record of the patient in source "lab"/);
  assert.ok(!JSON.stringify(refused.body).includes('l-ann-obs'));
});
