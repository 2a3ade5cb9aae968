/**
 * One AuditEvent (FHIR R4) per facade access, shaped by IHE Basic Audit Log Patterns (BALP): the REST
 * type and interaction subtype, the action (R, E, C, U, D), the outcome (0; 4 for a refusal or a 4xx;
 * 8 for an upstream failure), the caller and the gateway as agents (with their BALP roles), the
 * gateway as observer, and the request id, the patient, the resource or the base64 query as entities.
 * A token's `jti` is recorded, never the token; no secret is ever in an AuditEvent.
 * @module
 */
import type { Caller } from './caller.js';
import type { Interaction } from './interaction.js';

const BALP = 'https://profiles.ihe.net/ITI/BALP/StructureDefinition/IHE.BasicAudit.';
const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const ENTITY_TYPE = 'http://terminology.hl7.org/CodeSystem/audit-entity-type';
const OBJECT_ROLE = 'http://terminology.hl7.org/CodeSystem/object-role';

/** What the facade knows about one access. */
export interface AuditFacts {
  readonly interaction: Interaction;
  readonly source: string;
  /** `undefined` when the caller could not be identified. */
  readonly caller: Caller | undefined;
  /** The caller's network address. */
  readonly address: string | undefined;
  /** The facade base the caller used (the server agent). */
  readonly server: string;
  readonly requestId: string;
  readonly observer: string;
  /** 0 success, 4 minor failure (refusal, 4xx), 8 serious failure (upstream 5xx, unreachable), 12 major. */
  readonly outcome: 0 | 4 | 8 | 12;
  readonly outcomeDesc?: string;
  /** The resource touched, versioned when known (`Patient/1/_history/2`). */
  readonly what?: string;
  /** The patient concerned (`Patient/123`). */
  readonly patient?: string;
  /** The search as requested (`GET Patient?name=x`), base64-encoded into the query entity. */
  readonly query?: string;
  /** The time of recording. Default now. */
  readonly recorded?: Date;
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

const coding = (system: string, code: string, display?: string) => ({ system, code, ...(display === undefined ? {} : { display }) });

/** The AuditEvent of one access. */
export function auditEvent(facts: AuditFacts): Record<string, unknown> {
  const { interaction, caller, outcome } = facts;
  const kind = kindOf(interaction.name);
  const profile = kind.profile === undefined || outcome !== 0 ? undefined : `${BALP}${facts.patient === undefined ? '' : 'Patient'}${kind.profile}`;
  const source = coding(DCM, '110153', 'Source Role ID');
  const destination = coding(DCM, '110152', 'Destination Role ID');
  const client = {
    type: { coding: [kind.toClient ? destination : source] },
    who: caller === undefined ? { display: 'unidentified caller' } : { identifier: { ...(caller.issuer === undefined ? {} : { system: caller.issuer }), value: caller.name } },
    requestor: caller?.user === undefined,
    ...(caller?.jti === undefined ? {} : { policy: [`urn:ietf:params:oauth:jti:${caller.jti}`] }),
    ...(facts.address === undefined ? {} : { network: { address: facts.address, type: '2' } }),
  };
  const server = {
    type: { coding: [kind.toClient ? source : destination] },
    who: { display: `FHIR endpoint ${facts.source}` },
    requestor: false,
    network: { address: facts.server, type: '5' },
  };
  const user = caller?.user === undefined ? [] : [{ type: { coding: [coding('http://terminology.hl7.org/CodeSystem/v3-RoleClass', 'PROV', 'healthcare provider')] }, who: { reference: caller.user }, requestor: true }];
  const entity: Record<string, unknown>[] = [{ what: { identifier: { value: facts.requestId } }, type: coding('https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType', 'XrequestId') }];
  if (facts.patient !== undefined) entity.push({ what: { reference: facts.patient }, type: coding(ENTITY_TYPE, '1', 'Person'), role: coding(OBJECT_ROLE, '1', 'Patient') });
  if (facts.query !== undefined) entity.push({ type: coding(ENTITY_TYPE, '2', 'System Object'), role: coding(OBJECT_ROLE, '24', 'Query'), query: Buffer.from(facts.query, 'utf8').toString('base64') });
  if (facts.what !== undefined) entity.push({ what: { reference: facts.what }, type: coding(ENTITY_TYPE, '2', 'System Object'), role: coding(OBJECT_ROLE, '4', 'Domain Resource') });
  return {
    resourceType: 'AuditEvent',
    ...(profile === undefined ? {} : { meta: { profile: [profile] } }),
    type: coding('http://terminology.hl7.org/CodeSystem/audit-event-type', 'rest', 'Restful Operation'),
    subtype: [coding('http://hl7.org/fhir/restful-interaction', interaction.name === 'operation' ? 'operation' : interaction.name)],
    action: kind.action,
    recorded: (facts.recorded ?? new Date()).toISOString(),
    outcome: String(outcome),
    ...(facts.outcomeDesc === undefined ? {} : { outcomeDesc: facts.outcomeDesc }),
    agent: [client, server, ...user],
    source: { observer: { display: facts.observer }, type: [coding('http://terminology.hl7.org/CodeSystem/security-source-type', '4', 'Application Server')] },
    entity,
  };
}
