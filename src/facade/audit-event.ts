/**
 * One AuditEvent (FHIR R4) per facade access, shaped by IHE Basic Audit Log Patterns (BALP): the REST
 * type and interaction subtype, the action (R, E, C, U, D), the outcome (0; 4 for a refusal or a 4xx;
 * 8 for an upstream failure), the caller and the gateway as agents (with their BALP roles), the
 * gateway as observer, and the request id, the patient, the resource or the base64 query as entities.
 * A token's `jti` is recorded, never the token; no secret is ever in an AuditEvent. Every text a caller
 * chose (the reason of a refusal, the query, a token's claims, an id) goes in through {@link auditText}.
 * Built as an object for the audit sink ({@link auditEvent}) and written as JSON text for the `fhir.audit`
 * event ({@link AuditEventWriter}): the same AuditEvent, byte for byte what JSON.stringify of the object
 * writes, from fragments made once (a search writes one AuditEvent per patient, and JSON.stringify of the
 * object was most of the audit's cost).
 * @module
 */
import type { Caller } from './caller.js';
import type { Interaction } from './interaction.js';

const BALP = 'https://profiles.ihe.net/ITI/BALP/StructureDefinition/IHE.BasicAudit.';
const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const ENTITY_TYPE = 'http://terminology.hl7.org/CodeSystem/audit-entity-type';
const OBJECT_ROLE = 'http://terminology.hl7.org/CodeSystem/object-role';

/** The most characters of a caller's text an AuditEvent holds (a reason, an id, a claim), after {@link auditText}. */
export const AUDIT_TEXT_MAX = 256;

/** The most characters of the request as sent (the query entity) an AuditEvent holds, before base64. */
export const AUDIT_QUERY_MAX = 2048;

/** C0 and C1 controls, DEL, and the bidirectional overrides and isolates that make a log line lie. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` as an AuditEvent may hold it: each control character (a line break, a terminal escape, a
 * bidirectional override) a space, then cut to `max` characters, ending in `…` when cut (never between
 * the two halves of a surrogate pair). One caller's text can then neither forge a line of whatever
 * reads the AuditEvent nor make its AuditEvent too large for the audit sink's server.
 */
export function auditText(text: string, max: number = AUDIT_TEXT_MAX): string {
  const clean = text.replace(CONTROL, ' ');
  if (clean.length <= max) return clean;
  let end = max - 1;
  if (/[\ud800-\udbff]/.test(clean[end - 1] ?? '')) end--;
  return `${clean.slice(0, end)}…`;
}

/** Who accessed which base, and how: shared by every AuditEvent of one access. */
export interface AccessFacts {
  readonly interaction: Interaction;
  readonly source: string;
  /** `undefined` when the caller could not be identified. */
  readonly caller: Caller | undefined;
  /** The caller's network address. */
  readonly address: string | undefined;
  /** The facade base the caller used (the server agent). */
  readonly server: string;
  readonly requestId: string;
  /** The `traceparent` of the facade's span of the request (W3C Trace Context), when the host gave one. */
  readonly traceparent: string | undefined;
  readonly observer: string;
}

/** How an access ended and what it touched: one AuditEvent each. */
export interface AccessResult {
  /** 0 success, 4 minor failure (refusal, 4xx), 8 serious failure (upstream 5xx, unreachable), 12 major. */
  readonly outcome: 0 | 4 | 8 | 12;
  readonly outcomeDesc?: string;
  /** The resource touched, versioned when known (`Patient/1/_history/2`). */
  readonly what?: string;
  /** The patient concerned (`Patient/123`). */
  readonly patient?: string;
  /** More patients concerned, each a patient entity: a resolution's local patient in each source (`{base}/lab/Patient/987`). */
  readonly patients?: readonly string[];
  /** The search as requested (`GET Patient?name=x`), base64-encoded into the query entity. */
  readonly query?: string;
}

/** BALP's action and profile per interaction, and whether data flows to the client (reads) or from it. */
function kindOf(name: Interaction['name']): { action: 'R' | 'E' | 'C' | 'U' | 'D'; profile: string | undefined; toClient: boolean } {
  switch (name) {
    case 'read': case 'vread': case 'history-instance': return { action: 'R', profile: 'Read', toClient: true };
    case 'search-type': case 'search-system': case 'history-type': case 'history-system': return { action: 'E', profile: 'Query', toClient: false };
    case 'create': return { action: 'C', profile: 'Create', toClient: false };
    case 'update': case 'patch': return { action: 'U', profile: 'Update', toClient: false };
    case 'delete': return { action: 'D', profile: 'Delete', toClient: false };
    case 'capabilities': return { action: 'R', profile: undefined, toClient: true };
    default: return { action: 'E', profile: undefined, toClient: false };
  }
}

const coding = (system: string, code: string, display?: string) => Object.freeze({ system, code, ...(display === undefined ? {} : { display }) });

// The codings every AuditEvent shares, made once (an AuditEvent is built per access).
const SOURCE_ROLE = Object.freeze([coding(DCM, '110153', 'Source Role ID')]);
const DESTINATION_ROLE = Object.freeze([coding(DCM, '110152', 'Destination Role ID')]);
const REST = coding('http://terminology.hl7.org/CodeSystem/audit-event-type', 'rest', 'Restful Operation');
const SUBTYPES = new Map<string, readonly unknown[]>();
const PROVIDER = Object.freeze({ coding: Object.freeze([coding('http://terminology.hl7.org/CodeSystem/v3-RoleClass', 'PROV', 'healthcare provider')]) });
const REQUEST_ID = coding('https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType', 'XrequestId');
/** BALP's entity type for a W3C `traceparent` (as the Swiss EPR's trace-context rule records the responder's). */
const TRACEPARENT = coding('https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType', 'Traceparent');
const PERSON = coding(ENTITY_TYPE, '1', 'Person');
const PATIENT_ROLE = coding(OBJECT_ROLE, '1', 'Patient');
const SYSTEM_OBJECT = coding(ENTITY_TYPE, '2', 'System Object');
const QUERY_ROLE = coding(OBJECT_ROLE, '24', 'Query');
const RESOURCE_ROLE = coding(OBJECT_ROLE, '4', 'Domain Resource');
const APPLICATION_SERVER = Object.freeze([coding('http://terminology.hl7.org/CodeSystem/security-source-type', '4', 'Application Server')]);
const UNIDENTIFIED = Object.freeze({ display: 'unidentified caller' });

function subtype(name: Interaction['name']): readonly unknown[] {
  let found = SUBTYPES.get(name);
  if (found === undefined) SUBTYPES.set(name, (found = Object.freeze([coding('http://hl7.org/fhir/restful-interaction', name)])));
  return found;
}

/** The AuditEvent of one access, recorded at `recordedMs` (epoch milliseconds). */
export function auditEvent(access: AccessFacts, result: AccessResult, recordedMs: number): Record<string, unknown> {
  const { interaction, caller } = access;
  const { outcome } = result;
  const kind = kindOf(interaction.name);
  const patientKnown = result.patient !== undefined || (result.patients !== undefined && result.patients.length > 0);
  const profile = kind.profile === undefined || outcome !== 0 ? undefined : `${BALP}${patientKnown ? 'Patient' : ''}${kind.profile}`;
  const client = {
    type: { coding: kind.toClient ? DESTINATION_ROLE : SOURCE_ROLE },
    who: caller === undefined ? UNIDENTIFIED : { identifier: { ...(caller.issuer === undefined ? {} : { system: caller.issuer }), value: auditText(caller.name) } },
    requestor: caller?.user === undefined,
    ...(caller?.jti === undefined ? {} : { policy: [`urn:ietf:params:oauth:jti:${auditText(caller.jti)}`] }),
    ...(access.address === undefined ? {} : { network: { address: access.address, type: '2' } }),
  };
  const server = {
    type: { coding: kind.toClient ? SOURCE_ROLE : DESTINATION_ROLE },
    who: { display: `FHIR endpoint ${auditText(access.source)}` },
    requestor: false,
    network: { address: auditText(access.server, AUDIT_QUERY_MAX), type: '5' },
  };
  const agent: unknown[] = [client, server];
  if (caller?.user !== undefined) agent.push({ type: PROVIDER, who: { reference: auditText(caller.user) }, requestor: true });
  const entity: Record<string, unknown>[] = [{ what: { identifier: { value: access.requestId } }, type: REQUEST_ID }];
  if (access.traceparent !== undefined) entity.push({ what: { identifier: { value: access.traceparent } }, type: TRACEPARENT });
  if (result.patient !== undefined) entity.push({ what: { reference: auditText(result.patient) }, type: PERSON, role: PATIENT_ROLE });
  for (const patient of result.patients ?? []) entity.push({ what: { reference: auditText(patient, AUDIT_QUERY_MAX) }, type: PERSON, role: PATIENT_ROLE });
  if (result.query !== undefined) entity.push({ type: SYSTEM_OBJECT, role: QUERY_ROLE, query: Buffer.from(auditText(result.query, AUDIT_QUERY_MAX), 'utf8').toString('base64') });
  if (result.what !== undefined) entity.push({ what: { reference: auditText(result.what) }, type: SYSTEM_OBJECT, role: RESOURCE_ROLE });
  return {
    resourceType: 'AuditEvent',
    ...(profile === undefined ? {} : { meta: { profile: [profile] } }),
    type: REST,
    subtype: subtype(interaction.name),
    action: kind.action,
    recorded: new Date(recordedMs).toISOString(),
    outcome: String(outcome),
    ...(result.outcomeDesc === undefined ? {} : { outcomeDesc: auditText(result.outcomeDesc) }),
    agent,
    source: { observer: { display: access.observer }, type: APPLICATION_SERVER },
    entity,
  };
}

/** A JSON string or value as JSON text: what `JSON.stringify` of the whole AuditEvent writes for it. */
const json = JSON.stringify;

/**
 * `text` flattened. V8 keeps a string joined by `+` as a tree of its parts, and whoever reads an
 * AuditEvent (`Buffer.byteLength`, a socket's write) walks the trees of the fragments in it again for
 * each AuditEvent (that walk cost more than the writing); read as a number (NaN), a string is flattened
 * in place, once.
 */
function flat(text: string): string {
  Number(text);
  return text;
}

// The shared codings as JSON text, written once from the objects above (JSON.stringify writes a flat string).
const SOURCE_ROLE_TEXT = json(SOURCE_ROLE);
const DESTINATION_ROLE_TEXT = json(DESTINATION_ROLE);
const PROVIDER_TEXT = json(PROVIDER);
const REQUEST_ID_TEXT = json(REQUEST_ID);
const TRACEPARENT_TEXT = json(TRACEPARENT);
const PATIENT_TEXT = flat(`"type":${json(PERSON)},"role":${json(PATIENT_ROLE)}`);
const QUERY_TEXT = flat(`"type":${json(SYSTEM_OBJECT)},"role":${json(QUERY_ROLE)}`);
const RESOURCE_TEXT = flat(`"type":${json(SYSTEM_OBJECT)},"role":${json(RESOURCE_ROLE)}`);
const SOURCE_TYPE_TEXT = json(APPLICATION_SERVER);

/**
 * Per interaction, the AuditEvent's start up to its action, without a profile, with BALP's profile and
 * with its patient profile (`PatientRead`): each written on first use.
 */
const HEADS = new Map<Interaction['name'], readonly [string, string, string]>();

function headsOf(name: Interaction['name']): readonly [string, string, string] {
  let found = HEADS.get(name);
  if (found === undefined) {
    const { action, profile } = kindOf(name);
    const rest = `"type":${json(REST)},"subtype":${json(subtype(name))},"action":"${action}"`;
    const start = '{"resourceType":"AuditEvent",';
    const meta = (p: string): string => (profile === undefined ? '' : `"meta":{"profile":[${json(`${BALP}${p}${profile}`)}]},`);
    HEADS.set(name, (found = [flat(`${start}${rest}`), flat(`${start}${meta('')}${rest}`), flat(`${start}${meta('Patient')}${rest}`)]));
  }
  return found;
}

/** A patient entity, `reference` as cleaned. */
const patientEntity = (reference: string): string => `,{"what":{"reference":${json(reference)}},${PATIENT_TEXT}}`;

/**
 * The text of an access's AuditEvents from its agents to its request's entities, the same in each of
 * them: `,"agent":[…],"source":{…},"entity":[{request id}` and the `traceparent` entity when there is one.
 */
function sharedText(access: AccessFacts): string {
  const { caller } = access;
  const toClient = kindOf(access.interaction.name).toClient;
  const who = caller === undefined
    ? '{"display":"unidentified caller"}'
    : `{"identifier":{${caller.issuer === undefined ? '' : `"system":${json(caller.issuer)},`}"value":${json(auditText(caller.name))}}}`;
  let text = `,"agent":[{"type":{"coding":${toClient ? DESTINATION_ROLE_TEXT : SOURCE_ROLE_TEXT}},"who":${who},"requestor":${caller?.user === undefined}`;
  if (caller?.jti !== undefined) text += `,"policy":[${json(`urn:ietf:params:oauth:jti:${auditText(caller.jti)}`)}]`;
  if (access.address !== undefined) text += `,"network":{"address":${json(access.address)},"type":"2"}`;
  text += `},{"type":{"coding":${toClient ? SOURCE_ROLE_TEXT : DESTINATION_ROLE_TEXT}},"who":{"display":${json(`FHIR endpoint ${auditText(access.source)}`)}},"requestor":false,"network":{"address":${json(auditText(access.server, AUDIT_QUERY_MAX))},"type":"5"}}`;
  if (caller?.user !== undefined) text += `,{"type":${PROVIDER_TEXT},"who":{"reference":${json(auditText(caller.user))}},"requestor":true}`;
  text += `],"source":{"observer":{"display":${json(access.observer)}},"type":${SOURCE_TYPE_TEXT}},"entity":[{"what":{"identifier":{"value":${json(access.requestId)}}},"type":${REQUEST_ID_TEXT}}`;
  if (access.traceparent !== undefined) text += `,{"what":{"identifier":{"value":${json(access.traceparent)}}},"type":${TRACEPARENT_TEXT}}`;
  return flat(text);
}

/**
 * Writes AuditEvents as JSON text (what `JSON.stringify` of the AuditEvent as an object writes, byte for
 * byte) from fragments written once: the codings at load, the agents, observer and request entities once
 * per access (an access of a search has one AuditEvent per patient), the time once per millisecond and
 * the base64 query once per query. Nothing the caller chose reaches the text but through {@link auditText}
 * and JSON's escaping.
 */
export class AuditEventWriter {
  #access: AccessFacts | undefined;
  #shared = '';
  #ms = Number.NaN;
  #recorded = '';
  #query: string | undefined;
  #query64 = '';

  /** The AuditEvent of one access as JSON text, recorded at `recordedMs` (epoch milliseconds). */
  write(access: AccessFacts, result: AccessResult, recordedMs: number): string {
    if (access !== this.#access) {
      this.#shared = sharedText(access);
      this.#access = access;
    }
    if (recordedMs !== this.#ms) {
      this.#recorded = new Date(recordedMs).toISOString();
      this.#ms = recordedMs;
    }
    const { outcome, patient, patients, query, what } = result;
    const patientKnown = patient !== undefined || (patients !== undefined && patients.length > 0);
    let text = headsOf(access.interaction.name)[outcome !== 0 ? 0 : patientKnown ? 2 : 1];
    text += `,"recorded":"${this.#recorded}","outcome":"${outcome}"`;
    if (result.outcomeDesc !== undefined) text += `,"outcomeDesc":${json(auditText(result.outcomeDesc))}`;
    text += this.#shared;
    if (patient !== undefined) text += patientEntity(auditText(patient));
    if (patients !== undefined) for (const p of patients) text += patientEntity(auditText(p, AUDIT_QUERY_MAX));
    if (query !== undefined) text += `,{${QUERY_TEXT},"query":"${this.#base64(query)}"}`;
    if (what !== undefined) text += `,{"what":{"reference":${json(auditText(what))}},${RESOURCE_TEXT}}`;
    return `${text}]}`;
  }

  /** The query entity's value: the request as sent, cleaned, in base64 (the accesses of one search share it). */
  #base64(query: string): string {
    if (query !== this.#query) {
      this.#query64 = Buffer.from(auditText(query, AUDIT_QUERY_MAX), 'utf8').toString('base64');
      this.#query = query;
    }
    return this.#query64;
  }
}
