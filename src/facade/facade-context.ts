/**
 * What every facade request is answered with: the gateway, the callers, page tokens, limits and the
 * audit trail, built once by the `FHIRFacade`.
 * @module
 */
import { formatTraceparent } from '../lib/trace-context.js';
import type { AsyncFHIRGateway } from '../gateway/index.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import type { AccessFacts } from './audit-event.js';
import type { AuditTrail } from './audit-trail.js';
import type { Caller } from './caller.js';
import { outcome } from './fhir-answer.js';
import { bindIdentity } from './identity-binding.js';
import type { CallerDirectory } from './identify-caller.js';
import type { Interaction } from './interaction.js';
import { RESERVED_NAMES } from './options.js';
import type { CheckedFacadeOptions } from './options.js';
import type { PageTokens } from './page-token.js';
import type { UpstreamLimits } from './upstream-limits.js';
import type { BaseRewriter } from './url-rewrite.js';

/** The facade's parts, shared by its routes. */
export interface FacadeContext {
  readonly gateway: AsyncFHIRGateway;
  readonly callers: CallerDirectory;
  readonly tokens: PageTokens;
  readonly limits: UpstreamLimits;
  readonly audit: AuditTrail;
  readonly options: CheckedFacadeOptions;
  /** The URL rewriter between a source's upstream base and its facade base (kept per pair). */
  rewriter(source: string, facadeBase: string): BaseRewriter;
}

/** The audit facts of an access of `req` at `server` (default: `source`'s base under the mount point). */
export function accessFacts(ctx: FacadeContext, req: RouteRequest, source: string, interaction: Interaction, caller: Caller | undefined, server = `${req.baseUrl}/${source}`): AccessFacts {
  return { interaction, source, caller, address: req.remoteAddress, server, requestId: req.requestId, traceparent: req.trace === undefined ? undefined : formatTraceparent(req.trace), observer: ctx.options.observerName };
}

/** The outcome code of an HTTP status: 0 below 400, 4 for a 4xx, 8 for a 5xx. */
export function outcomeOf(status: number): 0 | 4 | 8 {
  return status < 400 ? 0 : status < 500 ? 4 : 8;
}

/** The sources served as FHIR bases: the gateway's, but those named like a route of the prefix or the federated base. */
export function servedSources(ctx: FacadeContext): string[] {
  return ctx.gateway.sourceNames.filter((s) => !RESERVED_NAMES.includes(s) && s !== ctx.options.federatedName);
}

/**
 * The caller of `req` (bound by identity: its patient resolved for this request, see `bindIdentity`), or
 * the 401 reply (its refusal audited at `base`) when its credentials are missing or wrong.
 */
export async function identified(ctx: FacadeContext, req: RouteRequest, base: string, interaction: Interaction): Promise<{ caller: Caller } | { reply: RouteReply }> {
  let caller: Caller;
  try {
    caller = await ctx.callers.identify(req.headers);
  } catch (error) {
    ctx.audit.record(accessFacts(ctx, req, base, interaction, undefined), { outcome: 4, outcomeDesc: `caller not identified: ${(error as Error).message}` });
    return { reply: outcome(401, 'login', 'credentials are missing or not valid', { 'www-authenticate': 'Bearer' }) };
  }
  return { caller: await bindIdentity(ctx, req, caller, base) };
}
