// The AuditEvent is written as JSON text from fragments (issue 38): byte for byte what JSON.stringify of the
// AuditEvent built as an object wrote before, and equal to that object for the audit sink, over every
// interaction, refusals, each outcome, callers with and without names, issuers, jtis and users, texts that
// need JSON's escapes and auditText's cleaning, queries, patient entities, with and without a traceparent.
// The reference below is the object builder of src/facade/audit-event.ts at f8b4b04 (the sink's builder
// still), written out here as the oracle: a change to either the writer or the builder fails this test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalEventDispatcher } from '../../src/index.js';
import { auditEvent, AuditEventWriter, AUDIT_QUERY_MAX, auditText } from '../../src/facade/audit-event.js';
import type { AccessFacts, AccessResult } from '../../src/facade/audit-event.js';
import type { AuditSink } from '../../src/facade/audit-sink.js';
import { AuditTrail } from '../../src/facade/audit-trail.js';
import type { Caller } from '../../src/facade/caller.js';
import type { InteractionName } from '../../src/facade/interaction.js';

// ---- the reference: the object builder of f8b4b04 ----
const BALP = 'https://profiles.ihe.net/ITI/BALP/StructureDefinition/IHE.BasicAudit.';
const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const ENTITY_TYPE = 'http://terminology.hl7.org/CodeSystem/audit-entity-type';
const OBJECT_ROLE = 'http://terminology.hl7.org/CodeSystem/object-role';
const BASIC_TYPE = 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType';

/** BALP's action, profile and direction per interaction, as a table (the builder has it as a switch). */
const KINDS: Record<InteractionName, readonly [action: string, profile: string | undefined, toClient: boolean]> = {
  read: ['R', 'Read', true], vread: ['R', 'Read', true], 'history-instance': ['R', 'Read', true], capabilities: ['R', undefined, true],
  'search-type': ['E', 'Query', false], 'search-system': ['E', 'Query', false], 'history-type': ['E', 'Query', false], 'history-system': ['E', 'Query', false],
  create: ['C', 'Create', false], update: ['U', 'Update', false], patch: ['U', 'Update', false], delete: ['D', 'Delete', false],
  batch: ['E', undefined, false], transaction: ['E', undefined, false], operation: ['E', undefined, false],
};

function referenceKind(name: InteractionName): { action: string; profile: string | undefined; toClient: boolean } {
  const [action, profile, toClient] = KINDS[name];
  return { action, profile, toClient };
}

function referenceEvent(access: AccessFacts, result: AccessResult, recordedMs: number): Record<string, unknown> {
  const { interaction, caller } = access;
  const { outcome } = result;
  const kind = referenceKind(interaction.name);
  const sourceRole = [{ system: DCM, code: '110153', display: 'Source Role ID' }];
  const destinationRole = [{ system: DCM, code: '110152', display: 'Destination Role ID' }];
  const patientKnown = result.patient !== undefined || (result.patients !== undefined && result.patients.length > 0);
  const profile = kind.profile === undefined || outcome !== 0 ? undefined : `${BALP}${patientKnown ? 'Patient' : ''}${kind.profile}`;
  const agent: unknown[] = [
    {
      type: { coding: kind.toClient ? destinationRole : sourceRole },
      who: caller === undefined ? { display: 'unidentified caller' } : { identifier: { ...(caller.issuer === undefined ? {} : { system: caller.issuer }), value: auditText(caller.name) } },
      requestor: caller?.user === undefined,
      ...(caller?.jti === undefined ? {} : { policy: [`urn:ietf:params:oauth:jti:${auditText(caller.jti)}`] }),
      ...(access.address === undefined ? {} : { network: { address: access.address, type: '2' } }),
    },
    {
      type: { coding: kind.toClient ? sourceRole : destinationRole },
      who: { display: `FHIR endpoint ${auditText(access.source)}` },
      requestor: false,
      network: { address: auditText(access.server, AUDIT_QUERY_MAX), type: '5' },
    },
  ];
  if (caller?.user !== undefined) agent.push({ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-RoleClass', code: 'PROV', display: 'healthcare provider' }] }, who: { reference: auditText(caller.user) }, requestor: true });
  const person = { system: ENTITY_TYPE, code: '1', display: 'Person' };
  const patientRole = { system: OBJECT_ROLE, code: '1', display: 'Patient' };
  const systemObject = { system: ENTITY_TYPE, code: '2', display: 'System Object' };
  const entity: Record<string, unknown>[] = [{ what: { identifier: { value: access.requestId } }, type: { system: BASIC_TYPE, code: 'XrequestId' } }];
  if (access.traceparent !== undefined) entity.push({ what: { identifier: { value: access.traceparent } }, type: { system: BASIC_TYPE, code: 'Traceparent' } });
  if (result.patient !== undefined) entity.push({ what: { reference: auditText(result.patient) }, type: person, role: patientRole });
  for (const patient of result.patients ?? []) entity.push({ what: { reference: auditText(patient, AUDIT_QUERY_MAX) }, type: person, role: patientRole });
  if (result.query !== undefined) entity.push({ type: systemObject, role: { system: OBJECT_ROLE, code: '24', display: 'Query' }, query: Buffer.from(auditText(result.query, AUDIT_QUERY_MAX), 'utf8').toString('base64') });
  if (result.what !== undefined) entity.push({ what: { reference: auditText(result.what) }, type: systemObject, role: { system: OBJECT_ROLE, code: '4', display: 'Domain Resource' } });
  return {
    resourceType: 'AuditEvent',
    ...(profile === undefined ? {} : { meta: { profile: [profile] } }),
    type: { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest', display: 'Restful Operation' },
    subtype: [{ system: 'http://hl7.org/fhir/restful-interaction', code: interaction.name }],
    action: kind.action,
    recorded: new Date(recordedMs).toISOString(),
    outcome: String(outcome),
    ...(result.outcomeDesc === undefined ? {} : { outcomeDesc: auditText(result.outcomeDesc) }),
    agent,
    source: { observer: { display: access.observer }, type: [{ system: 'http://terminology.hl7.org/CodeSystem/security-source-type', code: '4', display: 'Application Server' }] },
    entity,
  };
}

// ---- the inputs ----
const INTERACTIONS = Object.keys(KINDS) as InteractionName[];
/** Needs JSON's escapes (quote, backslash, a lone surrogate, U+2028) and auditText's cleaning (a line break, a terminal escape, C1, a bidi override). */
const ODD = 'a "quoted" \\ name\nwith\r\ta line, \u001b[31m red, \u0085 \u202e evil \u2028 </script>, ünïcödé 😀 and a lone \ud800 half';
/** Cut by auditText at 256 with an emoji across the cut (never split between its halves), and a query longer than 2048. */
const LONG = `${'a'.repeat(254)}😀${'b'.repeat(40)}`;
const LONG_QUERY = `GET /ehr/Observation?code=${'x'.repeat(2100)}\n`;

const base = { id: 'c', kind: 'api-key', sources: '*', scopes: [], operations: new Set<string>(), patient: undefined, allowReaching: false } as const;
const CALLERS: (Caller | undefined)[] = [
  undefined,
  { ...base, name: 'bench' },
  { ...base, name: '' },
  { ...base, name: LONG },
  { ...base, kind: 'jwt', name: ODD, issuer: 'https://idp.test/"x"\\', jti: `j"1${ODD}`, user: `Practitioner/p"1${ODD}` },
  { ...base, kind: 'jwt', name: 'client-1', issuer: 'https://idp.test', jti: LONG },
  { ...base, kind: 'jwt', name: 'client-2', user: 'Practitioner/1' },
];

const RESULTS: AccessResult[] = [
  { outcome: 0 },
  { outcome: 0, query: 'GET /all/Patient?family=Benchmark', patient: 'Patient/bench-1' },
  { outcome: 0, query: 'GET /all/Patient?family=Benchmark', patient: 'Patient/bench-2' },
  { outcome: 0, query: `GET /ehr/Observation?code=${ODD}` },
  { outcome: 0, query: LONG_QUERY, patients: [] },
  { outcome: 0, what: 'Patient/bench-1/_history/1', patient: 'Patient/bench-1' },
  { outcome: 0, what: `Observation/${ODD}`, patient: `Patient/${LONG}` },
  { outcome: 0, query: 'GET Patient?identifier=urn:x|1', patients: ['http://h/fhir/ehr/Patient/1', `http://h/fhir/lab/Patient/${ODD}`, `http://h/fhir/x/Patient/${'p'.repeat(2100)}`] },
  { outcome: 4, outcomeDesc: 'answered 404', what: 'Patient/missing' },
  { outcome: 4, outcomeDesc: `caller not identified: ${ODD}` },
  { outcome: 4, outcomeDesc: LONG, query: 'GET /ehr/Patient?name=x', patient: 'Patient/1' },
  { outcome: 8, outcomeDesc: 'answered 502', query: 'GET /lab/Patient', patients: ['http://h/fhir/lab/Patient/1'] },
  { outcome: 8, outcomeDesc: `source "lab" failed: ${ODD}` },
  { outcome: 12, outcomeDesc: 'major', what: 'Patient/1', patient: 'Patient/1' },
  { outcome: 12 },
];

function* accesses(): Generator<AccessFacts> {
  let n = 0;
  for (const name of INTERACTIONS) {
    for (const caller of CALLERS) {
      for (const traceparent of [undefined, '00-070bc3895b03120c2b4f7e914f23a438-2c252c041f6f9937-01']) {
        n++;
        yield {
          interaction: { name, type: 'Patient', conditional: false },
          source: n % 3 === 0 ? `s"${ODD}` : n % 3 === 1 ? 'ehr' : LONG,
          caller,
          address: n % 2 === 0 ? undefined : n % 4 === 1 ? '::ffff:127.0.0.1' : '::1',
          server: n % 5 === 0 ? `http://h/fhir/${'s'.repeat(2100)}` : n % 5 === 1 ? `http://h/fhir/s"${ODD}` : 'http://127.0.0.1:8000/fhir/ehr',
          requestId: n % 7 === 0 ? `r"${ODD}` : `56425645-2bc1-4654-a5d9-${String(n).padStart(12, '0')}`,
          traceparent,
          observer: n % 6 === 0 ? `o"${ODD}` : 'fhirgate',
        };
      }
    }
  }
}

test('the AuditEvent written as text is byte for byte what JSON.stringify of the reference object writes, and the sink\'s object equals it, for every kind of access', () => {
  const writer = new AuditEventWriter(); // one writer throughout: its per-access, per-millisecond and per-query reuse is exercised
  let ms = Date.UTC(2026, 10, 29, 6, 30, 0, 0);
  let cases = 0;
  for (const access of accesses()) {
    for (const result of RESULTS) {
      if (cases % 3 === 0) ms += 1; // the same millisecond for some accesses in a row, as in one batch
      const text = writer.write(access, result, ms);
      const reference = referenceEvent(access, result, ms);
      assert.equal(text, JSON.stringify(reference), `${access.interaction.name} ${JSON.stringify(result).slice(0, 80)}`);
      assert.deepStrictEqual(JSON.parse(text), reference);
      assert.deepStrictEqual(auditEvent(access, result, ms), reference); // the sink's object
      cases++;
    }
  }
  assert.equal(cases, INTERACTIONS.length * CALLERS.length * 2 * RESULTS.length);
});

test('the trail hands the dispatcher the same text and the sink an equal object, each access in order, the flat facts cleaned', async () => {
  const sunk: Record<string, unknown>[] = [];
  const sink = { add: (event: Record<string, unknown>) => void sunk.push(event) } as unknown as AuditSink;
  const dispatcher = new LocalEventDispatcher();
  const payloads: Record<string, unknown>[] = [];
  dispatcher.register('fhir.audit', ([, payload]) => void payloads.push(payload as Record<string, unknown>));
  const trail = new AuditTrail(sink);
  trail.use(dispatcher);
  const recorded: [AccessFacts, AccessResult][] = [];
  const before = Date.now();
  for (const access of accesses()) {
    // The accesses of a search share one facts object; alternate results so consecutive facts differ too.
    for (const result of RESULTS.slice(0, 3)) {
      trail.record(access, result);
      recorded.push([access, result]);
    }
  }
  await new Promise((resolve) => setImmediate(resolve));
  const after = Date.now();
  assert.equal(payloads.length, recorded.length);
  assert.equal(sunk.length, recorded.length);
  for (let i = 0; i < recorded.length; i++) {
    const [access, result] = recorded[i]!;
    const payload = payloads[i]!;
    const ms = Date.parse(JSON.parse(payload.audit_event as string).recorded);
    assert.ok(ms >= before && ms <= after);
    const reference = referenceEvent(access, result, ms);
    assert.equal(payload.audit_event, JSON.stringify(reference));
    assert.deepStrictEqual(sunk[i], reference);
    assert.deepStrictEqual({ ...payload, audit_event: undefined }, {
      source: auditText(access.source),
      interaction: access.interaction.name,
      outcome: result.outcome,
      caller: access.caller === undefined ? null : auditText(access.caller.name),
      request_id: access.requestId,
      trace_id: access.traceparent?.slice(3, 35) ?? null,
      audit_event: undefined,
    });
  }
});
