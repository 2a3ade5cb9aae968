/**
 * The AuditEvent of a patient resolution the facade made, for an identity-bound caller or for `$everything` (BALP
 * `PatientQuery`-like: a search of Patient): the identifiers as the query entity, the patient's local
 * record in each source as a patient entity (`{prefix}/{source}/Patient/{id}`), outcome 4 with the
 * reason when a source is ambiguous, 8 when one failed or the resolution could not be made.
 * @module
 */
import type { PatientQuery, PatientResolution } from '../gateway/index.js';
import type { RouteRequest } from '../mount/index.js';
import type { Caller } from './caller.js';
import { accessFacts } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';
import type { Interaction } from './interaction.js';

/** A resolution is audited as a search of Patient. */
const RESOLVE: Interaction = Object.freeze({ name: 'search-type', type: 'Patient', conditional: false });

/**
 * Records a resolution asked at `base` (`undefined`: it could not be made): of `query`, by default the
 * patient `caller` is bound to (`$everything` passes the patient it was asked for).
 */
export function recordResolution(ctx: FacadeContext, req: RouteRequest, caller: Caller, base: string, resolution: PatientResolution | undefined, query: PatientQuery | undefined = caller.identity?.query): void {
  const facts = accessFacts(ctx, req, base, RESOLVE, caller, `${req.baseUrl}/${base}`);
  const asked = query === undefined ? '' : 'identifier' in query ? query.identifier : `${query.source}/Patient/${query.id}`;
  if (resolution === undefined) {
    ctx.audit.record(facts, { outcome: 8, outcomeDesc: `the patient could not be resolved: ${asked}`, query: `GET Patient?identifier=${asked}` });
    return;
  }
  const identifiers = resolution.identifiers.length > 0 ? resolution.identifiers.join(',') : asked;
  const patients = resolution.outcomes.flatMap((o) => (o.status === 'found' ? [`${req.baseUrl}/${o.source}/Patient/${o.id}`] : []));
  const problems = resolution.outcomes.flatMap((o) => (o.status === 'ambiguous' || o.status === 'failed' ? [`source "${o.source}" ${o.status}: ${o.reason}`] : []));
  const outcome = resolution.outcomes.some((o) => o.status === 'failed') ? 8 : problems.length > 0 ? 4 : 0;
  ctx.audit.record(facts, {
    outcome,
    ...(problems.length === 0 ? {} : { outcomeDesc: problems.join('; ') }),
    query: `GET Patient?identifier=${identifiers}${resolution.cached ? ' (cached)' : ''}`,
    patients,
  });
}
