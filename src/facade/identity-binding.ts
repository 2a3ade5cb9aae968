/**
 * A caller bound by identity, made ready for one request: its patient resolved (through the gateway's
 * `resolvePatient`, which caches for `identity.ttlSeconds`) across the sources it may use, giving its
 * local id per source; a source where the patient is ambiguous or the resolution failed is refused with
 * the reason, one where it is absent is not used; a resolution that cannot be made refuses every
 * source. Each resolution is audited (see `audit-resolution.ts`).
 * @module
 */
import { isFhirgateError } from '../errors.js';
import type { PatientResolution } from '../gateway/index.js';
import type { RouteRequest } from '../mount/index.js';
import { recordResolution } from './audit-resolution.js';
import { mayUseSource } from './caller.js';
import type { Caller } from './caller.js';
import { servedSources } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';

/** What a client is told of a refused source: the kind of outcome, never the other records' ids (the audit has them). */
export const SHOWN = { ambiguous: 'the patient is ambiguous there (its identifiers match more than one record)', failed: 'the patient could not be resolved there' } as const;

/**
 * `caller` with its patient's local id in each source it may use, for this request (`caller` itself
 * when it is not bound by identity, or is resolved already).
 */
export async function bindIdentity(ctx: FacadeContext, req: RouteRequest, caller: Caller, base: string): Promise<Caller> {
  const identity = caller.identity;
  if (identity === undefined || identity.ids !== undefined) return caller;
  const sources = servedSources(ctx).filter((s) => mayUseSource(caller, s));
  const ids = new Map<string, string>();
  const refused = new Map<string, string>();
  let resolution: PatientResolution | undefined;
  try {
    resolution = await ctx.gateway.resolvePatient(identity.query, { sources, signal: req.connectionSignal });
    for (const o of resolution.outcomes) {
      if (o.status === 'found') ids.set(o.source, o.id);
      else if (o.status === 'failed') refused.set(o.source, `${SHOWN.failed} (${o.code})`);
      else if (o.status === 'ambiguous') refused.set(o.source, SHOWN.ambiguous);
    }
  } catch (error) {
    for (const s of sources) refused.set(s, `${SHOWN.failed} (${isFhirgateError(error) ? error.code : 'ERR_INTERNAL'})`);
  }
  const bound: Caller = Object.freeze({ ...caller, identity: Object.freeze({ query: identity.query, ids, refused }) });
  recordResolution(ctx, req, bound, base, resolution);
  return bound;
}
