/**
 * `GET <prefix>/aggregate/<Type>?patient_identifier=system|value&sources=…`: the patient is resolved
 * per source first; the handler is called with the sources where it was found and each one's local id,
 * and each ambiguous or failed source is reported as an OperationOutcome entry and not asked.
 * @module
 */
import type { EventPayload } from '../../events/types.js';
import type { Bundle, BundleEntry, ResourceType } from '../../fhir/index.js';
import type { RouteReply, RouteRequest } from '../../mount/index.js';
import type { AggregateView } from '../identity/aggregate-view.js';
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
  if (facts.aggregatePatient === undefined) return { reply: outcomeReply(400, 'not-supported', 'patient_identifier needs the gateway\'s identity settings ("identity" in fhirgate.json)') };
  let view: AggregateView;
  try {
    view = await facts.aggregatePatient(req.query.get('patient_identifier') ?? '', sources);
  } catch (err) {
    if (err instanceof TypeError) return { reply: outcomeReply(400, 'value', err.message.replace(/^resolvePatient: identifier/, 'patient_identifier')) };
    return { reply: replyForError(err, req, { kind: 'aggregate', type, sourcesNamed: sources !== undefined }) };
  }
  const call: AggregateCall = {
    patientId: view.identifier,
    sources: view.sources,
    patient: Object.freeze({ identifier: view.identifier, ids: view.ids, resolution: view.resolution }),
    outcomes: view.outcomes,
    ...(view.sources.length === 0 ? { skip: { resourceType: 'Bundle', type: 'searchset', timestamp: new Date().toISOString(), total: 0 } } : {}),
    extra: {
      patient_identifier: view.identifier,
      patient_ids: Object.entries(view.ids).map(([source, id]) => `${source}=${id}`).join(','),
      refused: view.refused.join(','),
    },
  };
  return { call };
}
