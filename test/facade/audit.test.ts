// Every access is an AuditEvent (FHIR R4 + IHE BALP), refusals included, checked field by field; the
// optional sink stores them in a FHIR source in batches and counts what it loses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import { auditEvent } from '../../src/facade/audit-event.js';
import { AuditSink } from '../../src/facade/audit-sink.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { facadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';

const KEY = 'auditor-key-0123456789';
const BALP = 'https://profiles.ihe.net/ITI/BALP/StructureDefinition/IHE.BasicAudit.';
const DCM = 'http://dicom.nema.org/resources/ontology/DCM';

function common(event: any, subtype: string, action: string, outcome: string) {
  assert.equal(event.resourceType, 'AuditEvent');
  assert.deepEqual(event.type, { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest', display: 'Restful Operation' });
  assert.deepEqual(event.subtype, [{ system: 'http://hl7.org/fhir/restful-interaction', code: subtype }]);
  assert.equal(event.action, action);
  assert.equal(event.outcome, outcome);
  assert.ok(!Number.isNaN(Date.parse(event.recorded)));
  assert.equal(event.source.observer.display, 'fhirgate');
  const [client, server] = event.agent;
  assert.deepEqual(client.who, { identifier: { value: 'auditor' } });
  assert.equal(client.requestor, true);
  assert.equal(client.network.address.replace('::ffff:', ''), '127.0.0.1');
  assert.equal(server.requestor, false);
  assert.match(server.network.address, /\/fhir\/ehr$/);
  const requestId = event.entity.find((e: any) => e.type.code === 'XrequestId');
  assert.equal(requestId.type.system, 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType');
  assert.match(requestId.what.identifier.value, /\S/);
  return { client, server };
}

const entity = (event: any, role: string) => event.entity.find((e: any) => e.role?.code === role);

test('read, search, create, update, delete and a refusal each give their BALP AuditEvent', async (t) => {
  const ehr = await sandbox(t, { open: true });
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, { callers: [{ name: 'auditor', apiKey: KEY, sources: '*', scopes: 'system/Patient.cruds system/Observation.rs' }] }, [KEY]);
  const call = (method: string, path: string, body?: unknown) => fetch(`${h.prefix}/ehr/${path}`, { method, headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/fhir+json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }).then(async (r) => ({ status: r.status, body: r.status === 204 ? undefined : ((await r.json()) as any), requestId: r.headers.get('x-request-id') }));

  const read = await call('GET', 'Patient/a-patient-1');
  let e = h.audits.at(-1)!;
  const { client, server } = common(e, 'read', 'R', '0');
  assert.deepEqual(e.meta.profile, [`${BALP}PatientRead`]);
  assert.equal(client.type.coding[0].code, '110152', 'reads: the client is the Destination');
  assert.equal(server.type.coding[0].code, '110153');
  assert.equal(entity(e, '4').what.reference, `Patient/a-patient-1/_history/${read.body.meta.versionId}`);
  assert.equal(entity(e, '1').what.reference, 'Patient/a-patient-1');
  assert.equal(e.entity.find((x: any) => x.type.code === 'XrequestId').what.identifier.value, read.requestId);

  const n = h.audits.length;
  await call('GET', 'Observation?subject=Patient/a-patient-2&_count=3');
  const searches = h.audits.slice(n);
  assert.equal(searches.length, 1, 'one patient in the result: one PatientQuery');
  e = searches[0];
  const s = common(e, 'search-type', 'E', '0');
  assert.deepEqual(e.meta.profile, [`${BALP}PatientQuery`]);
  assert.equal(s.client.type.coding[0].code, '110153', 'queries: the client is the Source');
  assert.equal(s.client.type.coding[0].system, DCM);
  assert.equal(Buffer.from(entity(e, '24').query, 'base64').toString('utf8'), 'GET /ehr/Observation?subject=Patient/a-patient-2&_count=3');
  assert.equal(entity(e, '24').what, undefined);
  assert.equal(entity(e, '1').what.reference, 'Patient/a-patient-2');

  const created = await call('POST', 'Patient', { resourceType: 'Patient', name: [{ family: 'Audited' }] });
  e = h.audits.at(-1)!;
  common(e, 'create', 'C', '0');
  assert.equal(entity(e, '4').what.reference, `Patient/${created.body.id}/_history/1`);
  await call('PUT', `Patient/${created.body.id}`, { ...created.body, active: true });
  e = h.audits.at(-1)!;
  common(e, 'update', 'U', '0');
  assert.deepEqual(e.meta.profile, [`${BALP}PatientUpdate`]);
  await call('DELETE', `Patient/${created.body.id}`);
  e = h.audits.at(-1)!;
  common(e, 'delete', 'D', '0');
  assert.equal(entity(e, '4').what.reference, `Patient/${created.body.id}`);

  const refused = await call('DELETE', 'Observation/a-patient-1-obs-1-1');
  assert.equal(refused.status, 403);
  e = h.audits.at(-1)!;
  common(e, 'delete', 'D', '4');
  assert.equal(e.meta, undefined, 'no BALP profile claims a refusal');
  assert.match(e.outcomeDesc, /scope does not allow delete on Observation/);

  const missing = await call('GET', 'Patient/nobody');
  assert.equal(missing.status, 404);
  common(h.audits.at(-1)!, 'read', 'R', '4');
  assert.ok(!JSON.stringify(h.audits).includes(KEY), 'no key in any AuditEvent');
});

test('the unidentified are audited too, and a JWT caller is recorded by its jti, never its token', async (t) => {
  const ehr = await sandbox(t, { open: true });
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Math.floor(Date.now() / 1000);
  const token = signJWT({ alg: 'ES256', kid: 'k' }, { iss: 'https://idp.test', sub: 'svc', client_id: 'svc-app', aud: 'https://gw.test/fhir', exp: now + 60, jti: 'jti-123', scope: 'system/Patient.rs', fhirUser: 'Practitioner/p1' }, privateKey);
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, {
    callers: [{ name: 'auditor', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }, { issuer: 'https://idp.test', jwks: { keys: [{ ...toPublicJWK(publicKey), kid: 'k' }] }, audience: 'https://gw.test/fhir', sources: '*', scopes: 'system/*.rs' }],
  }, [KEY, token]);
  assert.equal((await fetch(`${h.prefix}/ehr/Patient/a-patient-1`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  const j = h.audits.at(-1)!;
  assert.deepEqual(j.agent[0].who, { identifier: { system: 'https://idp.test', value: 'svc-app' } });
  assert.deepEqual(j.agent[0].policy, ['urn:ietf:params:oauth:jti:jti-123']);
  assert.equal(j.agent[0].requestor, false);
  assert.deepEqual(j.agent[2].who, { reference: 'Practitioner/p1' });
  assert.equal(j.agent[2].requestor, true, 'the user the token names is the requestor');
  assert.ok(!JSON.stringify(j).includes(token.split('.')[2]!), 'never the token');
  assert.equal((await fetch(`${h.prefix}/ehr/Patient/a-patient-1`, { headers: { 'x-api-key': 'not-the-key-0123456789' } })).status, 401);
  const e = h.audits.at(-1)!;
  assert.equal(e.outcome, '4');
  assert.deepEqual(e.agent[0].who, { display: 'unidentified caller' });
  assert.match(e.outcomeDesc, /unknown API key/);
  assert.ok(!JSON.stringify(e).includes('not-the-key'));
});

test('the audit sink posts batches to a FHIR source and counts what it loses', async (t) => {
  const posted: any[] = [];
  let fail = false;
  const sink = new AuditSink({ source: 'audit', batchSize: 2, flushIntervalMs: 60_000, maxQueue: 3 }, async (bundle: any) => {
    if (fail) throw new Error('down');
    posted.push(bundle);
    return { resourceType: 'Bundle', type: 'batch-response', entry: bundle.entry.map(() => ({ response: { status: '201 Created' } })) } as never;
  });
  t.after(() => sink.close());
  sink.add({ resourceType: 'AuditEvent', n: 1 });
  sink.add({ resourceType: 'AuditEvent', n: 2 });
  await sink.flush();
  assert.equal(posted.length, 1);
  assert.equal(posted[0].type, 'batch');
  assert.deepEqual(posted[0].entry.map((x: any) => [x.request.method, x.request.url]), [['POST', 'AuditEvent'], ['POST', 'AuditEvent']]);
  fail = true;
  for (let i = 0; i < 5; i++) sink.add({ resourceType: 'AuditEvent', n: 10 + i });
  await sink.flush();
  const s = sink.status();
  assert.equal(s.sent, 2);
  assert.equal(s.lost + s.queued, 5, 'every AuditEvent is either queued or counted lost');
  assert.ok(s.lost >= 2);
});

test('accesses answered in the same turn are each audited once, with their own request id', async (t) => {
  const ehr = await sandbox(t, { open: true });
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, { callers: [{ name: 'auditor', apiKey: KEY, sources: '*', scopes: 'system/Patient.rs' }] }, [KEY]);
  const ids = await Promise.all(Array.from({ length: 24 }, (_, i) => fetch(`${h.prefix}/ehr/Patient/${i % 2 === 0 ? 'a-patient-1' : 'nobody'}`, { headers: { 'x-api-key': KEY } }).then(async (r) => {
    await r.arrayBuffer();
    return r.headers.get('x-request-id')!;
  })));
  await new Promise((resolve) => setImmediate(resolve));
  const audited = h.audits.map((e) => e.entity.find((x: any) => x.type.code === 'XrequestId').what.identifier.value);
  assert.deepEqual([...audited].sort(), [...ids].sort());
  assert.equal(h.audits.filter((e) => e.outcome === '0').length, 12);
  assert.equal(h.audits.filter((e) => e.outcome === '4').length, 12);
});

test('an AuditEvent is valid JSON whatever its strings hold, every member where FHIR puts it', () => {
  const odd = 'a "quoted" \\ name\nwith a line, </script> and ünïcödé';
  // Control characters (the line break) become spaces (see auditText).
  const clean = odd.replace('\n', ' ');
  const caller = { id: 'jwt:x', name: odd, kind: 'jwt', sources: '*', scopes: [], operations: new Set<string>(), patient: undefined, allowReaching: false, issuer: 'https://idp.test/"x"', jti: 'j"1', user: 'Practitioner/p"1' } as const;
  const access = { interaction: { name: 'search-type', type: 'Observation', conditional: false }, source: 's"1', caller, address: '::1', server: 'http://h/fhir/s"1', requestId: 'r"1', traceparent: undefined, observer: 'o"1' } as const;
  const e = JSON.parse(JSON.stringify(auditEvent(access, { outcome: 4, outcomeDesc: odd, query: `GET /s/Observation?code=${odd}`, patient: 'Patient/"p"', what: 'Observation/1' }, Date.UTC(2026, 0, 2, 3, 4, 5, 6))));
  assert.deepEqual(e, {
    resourceType: 'AuditEvent',
    type: { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest', display: 'Restful Operation' },
    subtype: [{ system: 'http://hl7.org/fhir/restful-interaction', code: 'search-type' }],
    action: 'E',
    recorded: '2026-01-02T03:04:05.006Z',
    outcome: '4',
    outcomeDesc: clean,
    agent: [
      { type: { coding: [{ system: DCM, code: '110153', display: 'Source Role ID' }] }, who: { identifier: { system: 'https://idp.test/"x"', value: clean } }, requestor: false, policy: ['urn:ietf:params:oauth:jti:j"1'], network: { address: '::1', type: '2' } },
      { type: { coding: [{ system: DCM, code: '110152', display: 'Destination Role ID' }] }, who: { display: 'FHIR endpoint s"1' }, requestor: false, network: { address: 'http://h/fhir/s"1', type: '5' } },
      { type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-RoleClass', code: 'PROV', display: 'healthcare provider' }] }, who: { reference: 'Practitioner/p"1' }, requestor: true },
    ],
    source: { observer: { display: 'o"1' }, type: [{ system: 'http://terminology.hl7.org/CodeSystem/security-source-type', code: '4', display: 'Application Server' }] },
    entity: [
      { what: { identifier: { value: 'r"1' } }, type: { system: 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType', code: 'XrequestId' } },
      { what: { reference: 'Patient/"p"' }, type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '1', display: 'Person' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '1', display: 'Patient' } },
      { type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '24', display: 'Query' }, query: Buffer.from(`GET /s/Observation?code=${clean}`, 'utf8').toString('base64') },
      { what: { reference: 'Observation/1' }, type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '4', display: 'Domain Resource' } },
    ],
  });
  const ok = JSON.parse(JSON.stringify(auditEvent({ ...access, caller: undefined, address: undefined }, { outcome: 0 }, 0)));
  assert.deepEqual(ok.meta, { profile: [`${BALP}Query`] });
  assert.deepEqual(ok.agent[0], { type: { coding: [{ system: DCM, code: '110153', display: 'Source Role ID' }] }, who: { display: 'unidentified caller' }, requestor: true });
  assert.equal(ok.agent.length, 2);
});
