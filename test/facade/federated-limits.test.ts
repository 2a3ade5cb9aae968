// The federated base's edges: a `_sort` key named like an Object.prototype member is an unsupported sort key
// like any other (no prototype lookup), `_count=0` is the total alone (no entries, no next link), `_count` is
// bounded, and a hidden source's federated id gets the very 404 an unknown source's id gets (no oracle).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { facadeHarness } from '../support/facade-harness.js';
import { medplumServer } from '../support/medplum-server.js';
import { sandbox } from '../support/sandbox.js';

const KEY = 'federated-limits-key-0123456789';
const EHR_ONLY = 'ehr-only-limits-key-0123456789';

const observations = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ resourceType: 'Observation', id: `${prefix}-o-${i}`, status: 'final', code: { text: `${prefix} ${i}` } }));

async function setUp(t: TestContext) {
  const ehr = await sandbox(t, { open: true, seed: observations('ehr', 6) as never });
  const mp = await medplumServer(t);
  for (let i = 0; i < 4; i++) await mp.repo.createResource({ resourceType: 'Observation', status: 'final', code: { text: `mp ${i}` } } as never);
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), mp: `fhir://${mp.base.slice('http://'.length)}/` }, {
    callers: [{ name: 'fed', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }, { name: 'ehr-only', apiKey: EHR_ONLY, sources: ['ehr'], scopes: 'system/*.rs' }],
  }, [KEY, EHR_ONLY, 's3cr3t-cookie']);
  const get = async (path: string, key = KEY) => {
    const res = await fetch(`${h.prefix}/all/${path}`, { headers: { 'x-api-key': key } });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { ehr, mp, h, get };
}

test('_sort keys named like Object.prototype members answer as an unsupported sort key does, not 500', async (t) => {
  const { get } = await setUp(t);
  const unsupported = await get('Observation?_sort=nosuchkey');
  assert.notEqual(unsupported.status, 500);
  const shape = (a: { status: number; body: any }) => ({ status: a.status, resourceType: a.body.resourceType, entries: a.body.entry?.length, outcomes: a.body.entry?.filter((e: any) => e.search?.mode === 'outcome').length });
  for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty', '-constructor', 'valueOf']) {
    const answer = await get(`Observation?_sort=${key}`);
    assert.deepEqual(shape(answer), shape(unsupported), key);
  }
});

test('_count=0 at the federated base is the total alone: no entries, no next link; _count is at most 1000', async (t) => {
  const { get } = await setUp(t);
  const zero = await get('Observation?_count=0');
  assert.equal(zero.status, 200);
  assert.equal(zero.body.total, 10, 'six in the sandbox, four in Medplum');
  assert.equal(zero.body.entry?.length ?? 0, 0);
  assert.equal(zero.body.link.some((l: any) => l.relation === 'next'), false, 'no page follows');
  assert.equal((await get('Observation?_count=1000')).body.entry.length, 10);
  for (const count of ['1001', '-1', '2.5', 'ten']) {
    const refused = await get(`Observation?_count=${count}`);
    assert.equal(refused.status, 400, count);
    assert.match(refused.body.issue[0].diagnostics, /_count must be an integer from 0 to 1000/);
  }
});

test('a hidden source\'s federated id and an unknown source\'s id get the same 404', async (t) => {
  const { mp, get } = await setUp(t);
  const [one] = (await mp.repo.searchResources({ resourceType: 'Observation' } as never)) as { id: string }[];
  const asked = mp.requests.length;
  for (const rest of ['', '?_format=xml', '?_page_token=x', '/_history/1']) {
    const answers = [];
    for (const federated of [`mp.${one!.id}`, `zz.${one!.id}`, `nosource-${one!.id}`]) {
      const { status, body } = await get(`Observation/${federated}${rest}`, EHR_ONLY);
      answers.push({ status, body: JSON.stringify(body).split(federated).join('<id>') });
    }
    assert.equal(answers[0]!.status, 404, rest);
    assert.deepEqual(answers[1], answers[0], `an unknown source: the same answer (${rest})`);
    assert.deepEqual(answers[2], answers[0], `no source named at all: the same answer (${rest})`);
  }
  assert.equal(mp.requests.length, asked, 'the hidden source was not asked');
  assert.equal((await get(`Observation/mp.${one!.id}`)).status, 200, 'its id is real: the caller allowed there reads it');
});
