// One parameter policy (issue 34 item 12): a conditional write whose only parameters are the facade's own
// or FHIR's result parameters is refused 412 (it would match every resource of its type) with nothing
// sent; a `POST …/_search` form body gets the refusals its parameters get in the URL (`_format`, chains,
// `_has`, `_include`), and the audit's query entity holds the form body's parameters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { facadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';
import { until } from '../support/test-server.js';

const ADMIN = 'admin-key-0123456789';
const BOUND = 'pt1-key-0123456789abc';

async function setUp(t: TestContext) {
  const ehr = await sandbox(t, { open: true });
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, {
    callers: [
      { name: 'admin', apiKey: ADMIN, sources: '*', scopes: 'system/*.cruds' },
      { name: 'patient-1', apiKey: BOUND, sources: ['ehr'], scopes: 'system/*.rs', patient: 'a-patient-1' },
    ],
  }, [ADMIN, BOUND]);
  const call = (key: string, method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) =>
    fetch(`${h.prefix}/ehr/${path}`, { method, headers: { 'x-api-key': key, ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) });
  const form = (key: string, path: string, body: string) => call(key, 'POST', path, { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return { ehr, h, call, form };
}

test('a conditional write with no search criterion (only _format, _count, …) is 412 and nothing is sent', async (t) => {
  const { ehr, call } = await setUp(t);
  const json = { 'content-type': 'application/fhir+json' };
  const obs = JSON.stringify({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/a-patient-1' } });
  const cases: [string, string, { body?: string; headers?: Record<string, string> }][] = [
    ['DELETE', 'Observation?_format=json', {}],
    ['DELETE', 'Observation?_count=1&_sort=date', {}],
    ['DELETE', 'Observation?_format=json&_summary=count', {}],
    ['PUT', 'Observation?_format=json', { body: obs, headers: json }],
    ['PATCH', 'Observation?_elements=id', { body: '[]', headers: { 'content-type': 'application/json-patch+json' } }],
    ['POST', 'Observation', { body: obs, headers: { ...json, 'if-none-exist': '_format=json' } }],
  ];
  const before = ehr.stats.requests.total;
  for (const [method, path, init] of cases) {
    const res = await call(ADMIN, method, path, init);
    const body = (await res.json()) as any;
    assert.equal(res.status, 412, `${method} ${path}`);
    assert.match(body.issue[0].diagnostics, /needs search criteria/);
  }
  const batch = JSON.stringify({ resourceType: 'Bundle', type: 'batch', entry: [{ request: { method: 'DELETE', url: 'Observation?_format=json' } }] });
  assert.equal((await call(ADMIN, 'POST', '', { body: batch, headers: json })).status, 403, 'a batch entry alike');
  assert.equal(ehr.stats.requests.total, before, 'nothing went upstream');
  assert.equal((await call(ADMIN, 'DELETE', 'Observation/a-patient-1-obs-1-1?_format=json')).status, 204, 'a delete by id is no conditional write');
});

test('a _search form body gets the refusals its parameters get in the URL, nothing sent', async (t) => {
  const { ehr, form } = await setUp(t);
  const before = ehr.stats.requests.total;
  for (const body of ['_include=Observation:subject', 'subject.name=x', '_has:Observation:subject:code=1', '_revinclude=Observation:subject']) {
    const res = await form(BOUND, body.startsWith('_has') || body.startsWith('_rev') ? 'Patient/_search' : 'Observation/_search', body);
    assert.equal(res.status, 403, body);
    assert.match(((await res.json()) as any).issue[0].diagnostics, /reach outside the patient compartment/);
  }
  for (const key of [BOUND, ADMIN]) {
    const res = await form(key, 'Observation/_search', '_format=xml');
    assert.equal(res.status, 406, '_format in the body as in the URL');
    await res.arrayBuffer();
  }
  assert.equal(ehr.stats.requests.total, before, 'nothing went upstream');
  const ok = await form(BOUND, 'Observation/_search', '_format=json&_count=50');
  const bundle = (await ok.json()) as any;
  assert.equal(ok.status, 200);
  assert.ok(bundle.entry.length > 0 && bundle.entry.every((e: any) => e.resource.subject.reference === 'Patient/a-patient-1'), 'still held to the compartment');
});

test('the audit\'s query entity holds a _search form body\'s parameters', async (t) => {
  const { h, form } = await setUp(t);
  const res = await form(ADMIN, 'Observation/_search?_count=2', 'code=8867-4&subject=Patient/a-patient-1');
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const query = () => h.audits.map((e) => e.entity.find((x: any) => x.role?.code === '24')?.query).filter((q): q is string => q !== undefined).map((q) => Buffer.from(q, 'base64').toString('utf8'));
  await until(() => query().length > 0, 'the search\'s AuditEvent');
  assert.deepEqual(query(), ['POST /ehr/Observation/_search?_count=2&code=8867-4&subject=Patient%2Fa-patient-1']);
});
