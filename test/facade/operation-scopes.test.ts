// What a caller sees of a Bundle is cut to its scopes and compartment (issue 34 items 10 and 13): the
// answers of allowed $operations (`$everything`), search answers with included resources, and the
// `total` that stays true; `$export`, whose files the facade cannot cut, only within the scopes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { facadeHarness } from '../support/facade-harness.js';
import { startServer } from '../support/test-server.js';

const KEYS = { patientOnly: 'pat-key-0123456789ab', two: 'two-key-0123456789ab', all: 'all-key-0123456789ab', bound: 'bnd-key-0123456789ab' };

const obs = (id: string, patient: string) => ({ resourceType: 'Observation', id, status: 'final', code: { text: 'x' }, subject: { reference: `Patient/${patient}` } });
const cond = (id: string, patient: string) => ({ resourceType: 'Condition', id, subject: { reference: `Patient/${patient}` } });

/** A FHIR server answering `$everything`, Observation searches and `$export` with fixed Bundles; `next` adds a next link. */
async function setUp(t: TestContext) {
  const state = { next: false };
  const up = await startServer(t, (req, res) => {
    const url = new URL(decodeURIComponent(req.url ?? '/'), 'http://x');
    const bundle = (entry: unknown[], total: number) => {
      res.writeHead(200, { 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', total, link: state.next ? [{ relation: 'next', url: `http://127.0.0.1:1/fhir?page=2` }] : [], entry }));
    };
    const match = (resource: unknown) => ({ resource, search: { mode: 'match' } });
    if (url.pathname === '/fhir/Patient/p1/$everything') {
      bundle([{ resource: { resourceType: 'Patient', id: 'p1' } }, { resource: obs('o1', 'p1') }, { resource: cond('c1', 'p1') }, { resource: obs('o2', 'p2') }, { resource: { resourceType: 'Practitioner', id: 'dr' } }], 5);
    } else if (url.pathname === '/fhir/Observation') {
      bundle([match(obs('o1', 'p1')), match(obs('o2', 'p2')), { resource: { resourceType: 'Patient', id: 'p1' }, search: { mode: 'include' } }, { resource: { resourceType: 'Patient', id: 'p2' }, search: { mode: 'include' } }], 2);
    } else if (url.pathname === '/fhir/$export') {
      res.writeHead(202, { 'content-location': `http://127.0.0.1:1/fhir/$export-status/1` });
      res.end();
    } else {
      res.writeHead(404, { 'content-type': 'application/fhir+json' });
      res.end('{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"not-found"}]}');
    }
  });
  const h = await facadeHarness(t, { up: `fhir://127.0.0.1:${new URL(up.url).port}/fhir/` }, {
    callers: [
      { name: 'patient-only', apiKey: KEYS.patientOnly, sources: '*', scopes: 'system/Patient.rs', operations: ['$everything', '$export'] },
      { name: 'two', apiKey: KEYS.two, sources: '*', scopes: 'system/Patient.rs system/Observation.rs', operations: ['$everything', '$export'] },
      { name: 'all', apiKey: KEYS.all, sources: '*', scopes: 'system/*.rs', operations: ['$everything', '$export'] },
      { name: 'bound', apiKey: KEYS.bound, sources: ['up'], scopes: 'system/*.rs', patient: 'p1', operations: ['$everything'], allowReaching: true },
    ],
  }, Object.values(KEYS));
  const get = async (key: string, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${h.prefix}/up/${path}`, { ...init, headers: { 'x-api-key': key, ...(init.headers as Record<string, string> | undefined) } });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as any };
  };
  const ids = (body: any) => (body.entry as any[]).map((e) => `${e.resource.resourceType}/${e.resource.id}`);
  return { up, state, get, ids };
}

test('$everything answers only what the scopes read, its total lowered by the matches dropped from the one page', async (t) => {
  const { get, ids } = await setUp(t);
  const patientOnly = await get(KEYS.patientOnly, 'Patient/p1/$everything');
  assert.equal(patientOnly.status, 200);
  assert.deepEqual(ids(patientOnly.body), ['Patient/p1'], 'no Observation, Condition or Practitioner for system/Patient.rs');
  assert.equal(patientOnly.body.total, 1);
  const two = await get(KEYS.two, 'Patient/p1/$everything');
  assert.deepEqual(ids(two.body), ['Patient/p1', 'Observation/o1', 'Observation/o2']);
  assert.equal(two.body.total, 3);
  const all = await get(KEYS.all, 'Patient/p1/$everything');
  assert.equal(all.body.entry.length, 5, 'a caller that reads every type sees every entry');
  assert.equal(all.body.total, 5);
});

test('a compartment-bound caller\'s $everything is cut to its compartment', async (t) => {
  const { get, ids } = await setUp(t);
  const bound = await get(KEYS.bound, 'Patient/p1/$everything');
  assert.deepEqual(ids(bound.body), ['Patient/p1', 'Observation/o1', 'Condition/c1'], 'another patient\'s Observation and the Practitioner are outside');
  assert.equal(bound.body.total, 3);
});

test('a paged answer from which matches were dropped has no total; dropped includes leave total as it was', async (t) => {
  const { get, ids, state } = await setUp(t);
  const included = await get(KEYS.two, 'Observation?_include=Observation:subject');
  assert.deepEqual(ids(included.body), ['Observation/o1', 'Observation/o2', 'Patient/p1', 'Patient/p2'], 'system/Patient.rs reads the included Patients');
  const onlyObservations = await get(KEYS.bound, 'Observation?_include=Observation:subject');
  assert.deepEqual(ids(onlyObservations.body), ['Observation/o1', 'Patient/p1'], 'the compartment: another patient\'s match and include dropped');
  assert.equal(onlyObservations.body.total, 1, 'one page: the upstream\'s 2 matches less the one dropped');
  state.next = true;
  const paged = await get(KEYS.bound, 'Observation');
  assert.equal(paged.body.total, undefined, 'what the other pages lose is not known: no total');
  assert.ok(paged.body.link.some((l: any) => l.relation === 'next'));
  const pagedEverything = await get(KEYS.patientOnly, 'Patient/p1/$everything');
  assert.equal(pagedEverything.body.total, undefined);
  const nothingDropped = await get(KEYS.all, 'Patient/p1/$everything');
  assert.equal(nothingDropped.body.total, 5, 'nothing dropped: the upstream\'s total stands');
});

test('$export only within the scopes: without _type, or with a type the scopes do not read, 403 and nothing sent', async (t) => {
  const { up, get } = await setUp(t);
  const sent = () => up.seen.map((s) => decodeURIComponent(s.url)).filter((url) => url.startsWith('/fhir/$export'));
  const refused: [string, string, RequestInit?][] = [
    [KEYS.patientOnly, '$export'],
    [KEYS.patientOnly, '$export?_type=Patient,Observation'],
    [KEYS.patientOnly, '$export?_type=Patient&_typeFilter=Observation%3Fcode%3Dx'],
    [KEYS.two, '$export?_type=Condition'],
    [KEYS.patientOnly, '$export?_type=Patient', { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: '_type', valueString: 'Observation' }] }) }],
  ];
  for (const [key, path, init] of refused) {
    const res = await get(key, path, init);
    assert.equal(res.status, 403, path);
    assert.equal(res.body.resourceType, 'OperationOutcome');
  }
  assert.deepEqual(sent(), [], 'no export was started');
  assert.equal((await get(KEYS.patientOnly, '$export?_type=Patient')).status, 202);
  assert.equal((await get(KEYS.two, '$export?_type=Observation,Patient')).status, 202);
  assert.equal((await get(KEYS.all, '$export')).status, 202, 'a caller that reads every type exports every type');
  assert.deepEqual(sent(), ['/fhir/$export?_type=Patient', '/fhir/$export?_type=Observation,Patient', '/fhir/$export']);
});
