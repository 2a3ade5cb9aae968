/**
 * The audit of the feature-equal Fastify anchor (facade-fastify.ts): one AuditEvent-shaped JSON per
 * access, with the elements fhirgate's facade writes for the same access (src/facade/audit-event.ts:
 * BALP profile, type, subtype, action, recorded, outcome, the caller and the server as agents with their
 * network addresses, the observer, the request id and `traceparent`, patient, resource and base64 query entities; every text
 * a caller chose with control characters made spaces and cut, as the facade's `auditText` does), handed
 * to an in-memory queue after the answer (Fastify's `onResponse` hook) as the payload fhirgate's
 * `fhir.audit` event carries; a consumer empties the queue every 100 ms.
 */

/** One access, as the route recorded it. */
export interface Access {
  readonly interaction: 'read' | 'search-type' | 'operation';
  readonly source: string;
  readonly caller: string | undefined;
  readonly address: string | undefined;
  /** The facade base the caller used. */
  readonly server: string;
  readonly requestId: string;
  /** The request's own `traceparent` (its span). */
  readonly traceparent: string;
  readonly outcome: 0 | 4 | 8;
  readonly outcomeDesc?: string;
  readonly what?: string;
  readonly patient?: string;
  /** A patient resolution's records, one patient entity each (after {@link patient}). */
  readonly patients?: readonly string[];
  /** `GET /all/Patient?…`: base64-encoded into the query entity. */
  readonly query?: string;
}

const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A caller's text as an AuditEvent holds it (as the facade's `auditText`): control characters a space, at most `max` characters. */
const clean = (text: string, max = 256): string => {
  const t = text.replace(CONTROL, ' ');
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
};
const SOURCE_ROLE = [{ system: DCM, code: '110153', display: 'Source Role ID' }];
const DESTINATION_ROLE = [{ system: DCM, code: '110152', display: 'Destination Role ID' }];

/** The AuditEvent of `a`, recorded at `recorded` (epoch ms). */
export function auditEvent(a: Access, recorded: number): Record<string, unknown> {
  const read = a.interaction === 'read';
  // BALP names no profile for an operation (as the facade's audit-event.ts).
  const patientKnown = a.patient !== undefined || (a.patients?.length ?? 0) > 0;
  const profile = a.outcome !== 0 || a.interaction === 'operation' ? undefined : `https://profiles.ihe.net/ITI/BALP/StructureDefinition/IHE.BasicAudit.${patientKnown ? 'Patient' : ''}${read ? 'Read' : 'Query'}`;
  const entity: Record<string, unknown>[] = [{ what: { identifier: { value: a.requestId } }, type: { system: 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType', code: 'XrequestId' } }];
  entity.push({ what: { identifier: { value: a.traceparent } }, type: { system: 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType', code: 'Traceparent' } });
  for (const patient of [...(a.patient === undefined ? [] : [a.patient]), ...(a.patients ?? [])]) entity.push({ what: { reference: clean(patient) }, type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '1', display: 'Person' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '1', display: 'Patient' } });
  if (a.query !== undefined) entity.push({ type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '24', display: 'Query' }, query: Buffer.from(clean(a.query, 2048)).toString('base64') });
  if (a.what !== undefined) entity.push({ what: { reference: clean(a.what) }, type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' }, role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '4', display: 'Domain Resource' } });
  return {
    resourceType: 'AuditEvent',
    ...(profile === undefined ? {} : { meta: { profile: [profile] } }),
    type: { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest', display: 'Restful Operation' },
    subtype: [{ system: 'http://hl7.org/fhir/restful-interaction', code: a.interaction }],
    action: read ? 'R' : 'E',
    recorded: new Date(recorded).toISOString(),
    outcome: String(a.outcome),
    ...(a.outcomeDesc === undefined ? {} : { outcomeDesc: clean(a.outcomeDesc) }),
    agent: [
      {
        type: { coding: read ? DESTINATION_ROLE : SOURCE_ROLE },
        who: a.caller === undefined ? { display: 'unidentified caller' } : { identifier: { value: clean(a.caller) } },
        requestor: true,
        ...(a.address === undefined ? {} : { network: { address: a.address, type: '2' } }),
      },
      { type: { coding: read ? SOURCE_ROLE : DESTINATION_ROLE }, who: { display: `FHIR endpoint ${clean(a.source)}` }, requestor: false, network: { address: clean(a.server, 2048), type: '5' } },
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
  readonly trace_id: string | null;
  readonly audit_event: string;
}

/** A bounded in-memory queue (oldest dropped when full), emptied by a consumer every 100 ms. */
export class AuditQueue {
  readonly #items: AuditMessage[] = [];
  readonly #max: number;
  delivered = 0;
  lost = 0;
  /** Bytes of the last AuditEvent's JSON handed over, and of all of them. */
  lastBytes = 0;
  totalBytes = 0;

  constructor(max = 10_000) {
    this.#max = max;
    setInterval(() => (this.delivered += this.#items.splice(0).length), 100).unref();
  }

  /** Builds the AuditEvent of `a` and hands it over. */
  push(a: Access): void {
    const json = JSON.stringify(auditEvent(a, Date.now()));
    this.lastBytes = Buffer.byteLength(json);
    this.totalBytes += this.lastBytes;
    if (this.#items.length >= this.#max) {
      this.#items.shift();
      this.lost++;
    }
    this.#items.push({ interaction: a.interaction, outcome: a.outcome, source: clean(a.source), caller: a.caller === undefined ? null : clean(a.caller), request_id: a.requestId, trace_id: a.traceparent.slice(3, 35), audit_event: json });
  }
}
