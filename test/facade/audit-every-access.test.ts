// Every access is audited, as docs/facade.md says: what the facade refuses before a FHIR interaction
// exists (unknown source, type or path, a malformed escape, OPTIONS, a body too large), the federated
// base's 404/405, a federated search that asks no source, a source's refusal inside a federated search;
// and each is blamed on the right party: a caller's 5,000-deep body is the caller's (400, outcome 4),
// an upstream's 600-deep answer the upstream's (502, outcome 8).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { facadeHarness } from '../support/facade-harness.js';
import type { FacadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';

const KEY = 'every-access-key-0123456789';

/** Sends one request with its own request id; its answer, and the AuditEvents of that request once they are out. */
async function audited(h: FacadeHarness, method: string, path: string, init: { body?: string | Buffer; headers?: Record<string, string> } = {}) {
  const id = `t-${randomUUID()}`;
  const r = await fetch(`${h.prefix}/${path}`, { method, headers: { 'x-api-key': KEY, 'x-request-id': id, ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) });
  const text = await r.text();
  // AuditEvents are built after the answer (one setImmediate); a caller's identification may take a turn more.
  const mine = () => h.audits.filter((e) => e.entity.find((x: any) => x.type.code === 'XrequestId')?.what.identifier.value === id);
  for (let i = 0; i < 200 && mine().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return { status: r.status, text, events: mine() };
}

/** One AuditEvent, refused (outcome 4) and blamed on the caller, naming it and the base asked. */
function assertRefused(events: any[], server: RegExp, what: string, outcome = '4'): any {
  assert.equal(events.length, 1, `${what}: one AuditEvent`);
  const [e] = events;
  assert.equal(e.outcome, outcome, `${what}: outcome`);
  assert.deepEqual(e.agent[0].who, { identifier: { value: 'auditor' } }, `${what}: the caller is named`);
  assert.match(e.agent[1].network.address, server, `${what}: the base asked`);
  assert.ok(typeof e.outcomeDesc === 'string' && e.outcomeDesc !== '', `${what}: the reason`);
  return e;
}

async function twoSources(t: TestContext, extra: Record<string, unknown> = {}) {
  const ehr = await sandbox(t, { open: true });
  const lab = await sandbox(t, { open: true, seed: 'b' });
  return facadeHarness(t, { ehr: ehr.connectionString(), lab: lab.connectionString() }, { callers: [{ name: 'auditor', apiKey: KEY, sources: '*', scopes: 'system/*.cruds' }], ...extra }, [KEY]);
}

test('what no FHIR interaction answers is audited: an unknown source, type or path, a malformed escape, OPTIONS, a body too large', async (t) => {
  const h = await twoSources(t);
  let a = await audited(h, 'GET', 'nosuch/Patient');
  assert.equal(a.status, 404);
  assertRefused(a.events, /\/fhir\/nosuch$/, 'unknown source');
  a = await audited(h, 'GET', 'no%0D%0Asuch%1B%5B2J/Patient');
  assert.equal(a.status, 404);
  const named = assertRefused(a.events, /\/fhir\/no  such \[2J$/, 'an unknown source named with control characters');
  assert.equal(named.agent[1].who.display, 'FHIR endpoint no  such [2J');
  a = await audited(h, 'GET', 'ehr/NotAType/1');
  assert.equal(a.status, 404);
  assertRefused(a.events, /\/fhir\/ehr$/, 'unknown type');
  a = await audited(h, 'GET', 'ehr/Patient/a-patient-1/_history/1/x/y');
  assert.equal(a.status, 404);
  assertRefused(a.events, /\/fhir\/ehr$/, 'a path no route has');
  a = await audited(h, 'GET', 'ehr/Patient/%E0%A4%A');
  assert.equal(a.status, 400);
  assert.match(assertRefused(a.events, /\/fhir\/ehr$/, 'a malformed escape').outcomeDesc, /ERR_BAD_REQUEST/);
  a = await audited(h, 'OPTIONS', 'ehr/Patient');
  assert.equal(a.status, 405);
  const options = assertRefused(a.events, /\/fhir\/ehr$/, 'OPTIONS');
  assert.equal(options.subtype[0].code, 'capabilities');
  a = await audited(h, 'POST', 'ehr/Patient', { body: Buffer.alloc(11 * 1024 * 1024, 0x20), headers: { 'content-type': 'application/fhir+json' } });
  assert.equal(a.status, 413);
  const tooLarge = assertRefused(a.events, /\/fhir\/ehr$/, 'a body too large');
  assert.equal(tooLarge.subtype[0].code, 'create');
  assert.match(tooLarge.outcomeDesc, /ERR_BODY_TOO_LARGE/);
});

test("the federated base's 404 and 405, a search of no type, and a search that asks no source are audited", async (t) => {
  const h = await twoSources(t);
  let a = await audited(h, 'GET', 'all/Patient/ehr.a-patient-1/_history');
  assert.equal(a.status, 404);
  assertRefused(a.events, /\/fhir\/all$/, 'federated 404');
  a = await audited(h, 'DELETE', 'all/Patient/ehr.a-patient-1');
  assert.equal(a.status, 405);
  assert.equal(assertRefused(a.events, /\/fhir\/all$/, 'federated 405').subtype[0].code, 'delete');
  a = await audited(h, 'GET', 'all/NotAType');
  assert.equal(a.status, 404);
  assertRefused(a.events, /\/fhir\/all$/, 'federated unknown type');
  // Two ids of two sources, both required: no source can match both, so none is asked.
  a = await audited(h, 'GET', 'all/Patient?_id=ehr.a-patient-1&_id=lab.b-patient-1');
  assert.equal(a.status, 200);
  assert.equal(a.events.length, 1, 'a search that asks no source: one AuditEvent of the federated base');
  assert.equal(a.events[0].outcome, '0');
  assert.match(a.events[0].agent[1].network.address, /\/fhir\/all$/);
  assert.equal(Buffer.from(a.events[0].entity.find((e: any) => e.role?.code === '24').query, 'base64').toString(), 'GET /all/Patient?_id=ehr.a-patient-1&_id=lab.b-patient-1');
});

test('a source over its limit inside a federated search gives that source its own refused AuditEvent', async (t) => {
  const h = await twoSources(t, { limits: { lab: { perSecond: 0.001, burst: 1 } } });
  const first = await audited(h, 'GET', 'all/Patient?_count=1');
  assert.equal(first.status, 200);
  assert.deepEqual(first.events.map((e) => e.outcome).sort(), ['0', '0']);
  const second = await audited(h, 'GET', 'all/Patient?_count=1');
  assert.equal(second.status, 200);
  const lab = second.events.filter((e) => /\/fhir\/lab$/.test(e.agent[1].network.address));
  assert.equal(lab.length, 1, 'one AuditEvent for the refusal by lab');
  assert.equal(lab[0].outcome, '4');
  assert.match(lab[0].outcomeDesc, /limit|rate|429|throttl/i);
  assert.equal(second.events.filter((e) => /\/fhir\/ehr$/.test(e.agent[1].network.address))[0]?.outcome, '0');
});

const deep = (n: number) => `${'{"a":['.repeat(n)}${']}'.repeat(n)}`;

test("a caller's 5,000-deep body is the caller's error: 400, outcome 4, ERR_BAD_REQUEST", async (t) => {
  const h = await twoSources(t);
  const body = `{"resourceType":"Patient","extension":${deep(5000)}}`;
  const caller = await audited(h, 'POST', 'ehr/Patient', { body, headers: { 'content-type': 'application/fhir+json' } });
  assert.equal(caller.status, 400);
  assert.match(JSON.parse(caller.text).issue[0].diagnostics, /ERR_BAD_REQUEST.*512 levels/);
  assert.match(assertRefused(caller.events, /\/fhir\/ehr$/, 'a deep body').outcomeDesc, /ERR_BAD_REQUEST/);
});

test("an upstream's 600-deep answer is the upstream's failure: 502, outcome 8, ERR_FHIR_RESPONSE", async (t) => {
  const upstream = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end(`{"resourceType":"Patient","id":"p","extension":${deep(600)}}`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    upstream.closeAllConnections();
    upstream.close(() => resolve());
  }));
  const h = await facadeHarness(t, { deep: `fhir://127.0.0.1:${(upstream.address() as AddressInfo).port}/fhir` }, { callers: [{ name: 'auditor', apiKey: KEY, sources: '*', scopes: 'system/*.cruds' }] }, [KEY]);
  const source = await audited(h, 'GET', 'deep/Patient/p');
  assert.equal(source.status, 502);
  assert.match(JSON.parse(source.text).issue[0].diagnostics, /ERR_FHIR_RESPONSE/);
  assert.match(assertRefused(source.events, /\/fhir\/deep$/, 'a deep upstream answer', '8').outcomeDesc, /ERR_FHIR_RESPONSE/);
});
