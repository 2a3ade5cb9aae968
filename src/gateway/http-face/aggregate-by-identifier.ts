/**
 * `GET <prefix>/aggregate/<Type>?patient_identifier=system|value&sources=…`: the patient is resolved
 * per source first; the handler is called with the sources where it was found and each one's local id,
 * and each ambiguous or failed source is reported as an OperationOutcome entry and not asked.
 * @module
 */
import type { EventPayload } from '../../events/types.js';
import { operationOutcome, type Bundle, type BundleEntry, type ResourceType } from '../../fhir/index.js';
import type { RouteReply, RouteRequest } from '../../mount/index.js';
import { SOURCE_TAG_SYSTEM } from '../aggregate-sources.js';
import type { PatientResolution, SourceOutcome } from '../identity/index.js';
import { outcomeReply } from './fhir-reply.js';
import type { GatewayFacts } from './gateway-facts.js';
import type { AggregatePatient } from './registry.js';
import { replyForError } from './reply-for-error.js';

/** What the aggregate handler is called with, what the answer gets added, and what its event says. */
export interface AggregateCall {
  readonly patientId: string;
  readonly sources: string[] | undefined;
  readonly patient?: AggregatePatient;
  /** OperationOutcome entries appended to the handler's Bundle. */
  readonly outcomes?: readonly BundleEntry[];
  /** The answer in place of the handler's, when no source holds the patient (the handler is not called). */
  readonly skip?: Bundle;
  readonly extra?: EventPayload;
}

/** Resolves the identifier: the handler's call, or the reply to a request that cannot be resolved. */
export async function resolveForAggregate(facts: GatewayFacts, req: RouteRequest, type: ResourceType, sources: string[] | undefined): Promise<{ readonly reply: RouteReply } | { readonly call: AggregateCall }> {
  const identifier = req.query.get('patient_identifier') ?? '';
  if (facts.resolvePatient === undefined) return { reply: outcomeReply(400, 'not-supported', 'patient_identifier needs the gateway\'s identity settings ("identity" in fhirgate.json)') };
  let resolution: PatientResolution;
  try {
    resolution = await facts.resolvePatient({ identifier }, sources === undefined ? {} : { sources });
  } catch (err) {
    if (err instanceof TypeError) return { reply: outcomeReply(400, 'value', err.message.replace(/^resolvePatient: identifier/, 'patient_identifier')) };
    return { reply: replyForError(err, req, { kind: 'aggregate', type, sourcesNamed: sources !== undefined }) };
  }
  const found = resolution.outcomes.filter((o) => o.status === 'found');
  const patient: AggregatePatient = Object.freeze({ identifier: resolution.query, ids: Object.freeze(Object.fromEntries(found.map((o) => [o.source, o.id]))), resolution });
  const refused = resolution.outcomes.filter((o) => o.status === 'ambiguous' || o.status === 'failed');
  const call: AggregateCall = {
    patientId: resolution.query,
    sources: found.map((o) => o.source),
    patient,
    outcomes: refused.map(refusedEntry),
    ...(found.length === 0 ? { skip: { resourceType: 'Bundle', type: 'searchset', timestamp: new Date().toISOString(), total: 0 } } : {}),
    extra: {
      patient_identifier: resolution.query,
      patient_ids: found.map((o) => `${o.source}=${o.id}`).join(','),
      refused: refused.map((o) => o.source).join(','),
    },
  };
  return { call };
}

/** The OperationOutcome entry of a source that was not asked: ambiguous (`multiple-matches`) or failed. */
function refusedEntry(o: SourceOutcome & { status: 'ambiguous' | 'failed' }): BundleEntry {
  const code = o.status === 'ambiguous' ? 'multiple-matches' : o.code === 'ERR_TIMEOUT' ? 'timeout' : 'exception';
  const text = `source ${JSON.stringify(o.source)} was not asked: the patient is ${o.status === 'ambiguous' ? 'ambiguous there' : 'unknown there (the source failed during resolution)'}: ${o.reason}`;
  return { resource: { ...operationOutcome('error', code, text), meta: { tag: [{ system: SOURCE_TAG_SYSTEM, code: o.source }] } }, search: { mode: 'outcome' } };
}
