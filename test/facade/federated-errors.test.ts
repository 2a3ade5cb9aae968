// A bad search at the federated base does not look like "no results": when every asked source refuses it as
// the caller's error (4xx), the answer is that 4xx (400 when the sources disagree) with each source's own
// diagnostics, named by source and cleaned of its address; 502 only for upstream failures; a source's 4xx
// among answers stays an outcome entry, now with the source's words; `Prefer: handling=strict` answers the 4xx.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { facadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';

const KEY = 'federated-errors-key-0123456789';

const observations = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ resourceType: 'Observation', id: `${prefix}-o-${i}`, status: 'final', code: { text: `${prefix} ${i}` } }));

async function setUp(t: TestContext) {
  const ehr = await sandbox(t, { open: true, seed: observations('ehr', 3) as never });
  const lab = await sandbox(t, { open: true, seed: observations('lab', 2) as never });
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), lab: lab.connectionString() }, { callers: [{ name: 'fed', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }] }, [KEY]);
  const search = async (query: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${h.prefix}/all/Observation${query}`, { headers: { 'x-api-key': KEY, ...headers } });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { ehr, lab, h, search };
}

/** An upstream refusal whose diagnostics name the upstream's own address. */
const refusal = (base: string, words: string) => ({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid', diagnostics: `${words} at ${base}/Observation` }] });

test('a parameter every source refuses is their 400 with each source\'s own diagnostics, not an empty 200 (strict too)', async (t) => {
  const { search } = await setUp(t);
  for (const prefer of [{}, { prefer: 'handling=strict' }] as Record<string, string>[]) {
    const { status, body } = await search('?bogus=1', prefer);
    assert.equal(status, 400, JSON.stringify(prefer));
    assert.equal(body.resourceType, 'OperationOutcome');
    const said = body.issue.map((i: any) => i.diagnostics);
    for (const source of ['ehr', 'lab']) assert.ok(said.some((d: string) => d.startsWith(`source "${source}" answered 400: `) && /unknown search parameter "bogus"/.test(d)), `${source}'s own words: ${said}`);
  }
});

test('the sources\' diagnostics come cleaned of their addresses; their status when they agree, 400 when they do not', async (t) => {
  const { ehr, lab, h, search } = await setUp(t);
  ehr.faults.failNext(1, 422, { body: refusal(ehr.fhirBase, 'ehr cannot') });
  lab.faults.failNext(1, 422, { body: refusal(lab.fhirBase, 'lab cannot') });
  const agreed = await search('?code=x');
  assert.equal(agreed.status, 422, 'both said 422');
  const said = agreed.body.issue.map((i: any) => i.diagnostics);
  assert.ok(said.includes(`source "ehr" answered 422: ehr cannot at ${h.prefix}/ehr/Observation`), said);
  assert.ok(said.includes(`source "lab" answered 422: lab cannot at ${h.prefix}/lab/Observation`), said);
  ehr.faults.failNext(1, 404, { body: refusal(ehr.fhirBase, 'ehr has no such thing') });
  lab.faults.failNext(1, 422, { body: refusal(lab.fhirBase, 'lab cannot') });
  const mixed = await search('?code=x');
  assert.equal(mixed.status, 400, '404 and 422: 400');
  assert.equal(mixed.body.issue.length, 2);
});

test('with one source answering and one refusing, the answer is partial, the refusal an outcome entry in the source\'s words; strict is that 4xx', async (t) => {
  const { lab, search } = await setUp(t);
  lab.faults.failNext(1, 400, { body: refusal(lab.fhirBase, 'lab says no') });
  const partial = await search('?_count=50');
  assert.equal(partial.status, 200);
  assert.equal(partial.body.entry.filter((e: any) => e.search?.mode !== 'outcome').length, 3, 'the ehr\'s Observations');
  const outcomes = partial.body.entry.filter((e: any) => e.search?.mode === 'outcome');
  assert.equal(outcomes.length, 1);
  assert.match(outcomes[0].resource.issue[0].diagnostics, /^source "lab" answered 400: lab says no at http:\/\/127\.0\.0\.1:\d+\/fhir\/lab\/Observation$/);
  lab.faults.failNext(1, 400, { body: refusal(lab.fhirBase, 'lab says no') });
  const strict = await search('?_count=50', { prefer: 'handling=strict' });
  assert.equal(strict.status, 400, 'the source\'s 4xx, not 502');
  assert.match(strict.body.issue[0].diagnostics, /^source "lab" answered 400: lab says no/);
});

test('upstream failures are 502: every source 5xx, a 5xx beside a 4xx, an upstream 401 (the gateway\'s credentials)', async (t) => {
  const { ehr, lab, search } = await setUp(t);
  for (const [ehrStatus, labStatus] of [[503, 500], [503, 400], [401, 401]] as const) {
    // Twice: the gateway asks once more after a 401 (with a fresh token, were there one).
    ehr.faults.failNext(2, ehrStatus);
    lab.faults.failNext(2, labStatus);
    const { status, body } = await search('');
    assert.equal(status, 502, `${ehrStatus} and ${labStatus}`);
    assert.equal(body.issue[0].diagnostics, 'no source answered the search');
    assert.ok(body.issue.some((i: any) => i.diagnostics.startsWith(`source "ehr" answered ${ehrStatus}`)));
    assert.ok(body.issue.some((i: any) => i.diagnostics.startsWith(`source "lab" answered ${labStatus}`)));
    ehr.faults.reset();
    lab.faults.reset();
  }
});
