/**
 * The audit of the feature-equal Fastify anchor (facade-fastify.ts): one AuditEvent-shaped JSON per
 * access, with the elements fhirgate's facade writes for the same access (src/facade/audit-event.ts:
 * BALP profile, type, subtype, action, recorded, outcome, the caller and the server as agents with their
 * network addresses, the observer, the request id, the traceparent, patient, resource and base64 query entities), handed
 * to an in-memory queue after the answer (Fastify's `onResponse` hook) as the payload fhirgate's
 * `fhir.audit` event carries; a consumer empties the queue every 100 ms.
 */

/** One access, as the route recorded it. */
export interface Access {
  readonly interaction: 'read' | 'search-type';
  readonly source: string;
  readonly caller: string | undefined;
  readonly address: string | undefined;
  /** The facade base the caller used. */
  readonly server: string;
  readonly requestId: string;
  /** The request's W3C traceparent (BALP `Traceparent` entity). */
  readonly traceparent: string;
  readonly outcome: 0 | 4 | 8;
  readonly outcomeDesc?: string;
  readonly what?: string;
  readonly patient?: string;
  /** `GET /all/Patient?…`: base64-encoded into the query entity. */
  readonly query?: string;
}

const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const SOURCE_ROLE = [{ system: DCM, code: '110153', display: 'Source Role ID' }];
const DESTINATION_ROLE = [{ system: DCM, code: '110152', display: 'Destination Role ID' }];

/** The AuditEvent of `a`, recorded at `recorded` (epoch ms). */
export function auditEvent(a: Access, recorded: number): Record<string, unknown> {
  const read = a.interaction === 'read';
  const profile = a.outcome !== 0 ? undefined : `https://profiles.ihe.net/ITI/BALP/StructureDefinition/IHE.BasicAudit.${a.patient === undefined ? '' : 'Patient'}${read ? 'Read' : 'Query'}`;
  const entity: Record<string, unknown>[] = [{ what: { identifier: { value: a.requestId } }, type: { system: 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType', code: 'XrequestId' } }];
  entity.push({ what: { identifier: { value: a.traceparent } }, type: { system: 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType', code: 'Traceparent' } });
  if (a.patient !== undefined) entity.push({ what: { reference: a.patient }, type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '1', display: 'Person' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '1', display: 'Patient' } });
  if (a.query !== undefined) entity.push({ type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '24', display: 'Query' }, query: Buffer.from(a.query).toString('base64') });
  if (a.what !== undefined) entity.push({ what: { reference: a.what }, type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '4', display: 'Domain Resource' } });
  return {
    resourceType: 'AuditEvent',
    ...(profile === undefined ? {} : { meta: { profile: [profile] } }),
    type: { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest', display: 'Restful Operation' },
    subtype: [{ system: 'http://hl7.org/fhir/restful-interaction', code: a.interaction }],
    action: read ? 'R' : 'E',
    recorded: new Date(recorded).toISOString(),
    outcome: String(a.outcome),
    ...(a.outcomeDesc === undefined ? {} : { outcomeDesc: a.outcomeDesc }),
    agent: [
      {
        type: { coding: read ? DESTINATION_ROLE : SOURCE_ROLE },
        who: a.caller === undefined ? { display: 'unidentified caller' } : { identifier: { value: a.caller } },
        requestor: true,
        ...(a.address === undefined ? {} : { network: { address: a.address, type: '2' } }),
      },
      { type: { coding: read ? SOURCE_ROLE : DESTINATION_ROLE }, who: { display: `FHIR endpoint ${a.source}` }, requestor: false, network: { address: a.server, type: '5' } },
    ],
    source: { observer: { display: 'fhirgate' }, type: [{ system: 'http://terminology.hl7.org/CodeSystem/security-source-type', code: '4', display: 'Application Server' }] },
    entity,
  };
}

/** What the queue holds per access: the flat facts of fhirgate's `fhir.audit` payload and the AuditEvent as JSON. */
export interface AuditMessage {
  readonly source: string;
  readonly interaction: string;
  readonly outcome: number;
  readonly caller: string | null;
  readonly request_id: string;
  readonly audit_event: string;
}

/** A bounded in-memory queue (oldest dropped when full), emptied by a consumer every 100 ms. */
export class AuditQueue {
  readonly #items: AuditMessage[] = [];
  readonly #max: number;
  delivered = 0;
  lost = 0;
  /** Bytes of the last AuditEvent's JSON handed over. */
  lastBytes = 0;

  constructor(max = 10_000) {
    this.#max = max;
    setInterval(() => (this.delivered += this.#items.splice(0).length), 100).unref();
  }

  /** Builds the AuditEvent of `a` and hands it over. */
  push(a: Access): void {
    const json = JSON.stringify(auditEvent(a, Date.now()));
    this.lastBytes = Buffer.byteLength(json);
    if (this.#items.length >= this.#max) {
      this.#items.shift();
      this.lost++;
    }
    this.#items.push({ source: a.source, interaction: a.interaction, outcome: a.outcome, caller: a.caller ?? null, request_id: a.requestId, audit_event: json });
  }
}
