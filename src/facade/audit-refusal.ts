/**
 * The AuditEvent of a request the facade refuses before it is a FHIR interaction at all (an unknown
 * source, type or path, a method the base does not answer, a malformed path, a body too large): every
 * access is audited. Its caller is identified from its credentials when they identify one (unidentified
 * otherwise), off the request path.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Caller } from './caller.js';
import { formatTraceparent, type TraceContext } from '../lib/trace-context.js';
import type { FacadeContext } from './facade-context.js';
import type { Interaction, InteractionName } from './interaction.js';

/** What a refusal's AuditEvent needs of the request (a `RouteRequest` or the host's `RefusedRequest`). */
export interface RefusedAccess {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly requestId: string;
  readonly trace?: TraceContext | undefined;
  readonly remoteAddress?: string | undefined;
}

/** The interaction a method attempts where FHIR has none: what the AuditEvent's subtype and action say. */
const ATTEMPTED: Readonly<Record<string, InteractionName>> = { GET: 'read', HEAD: 'read', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** The interaction `method` attempts on a path FHIR has none for (`OPTIONS` and the rest: capabilities). */
export function attemptedInteraction(method: string): Interaction {
  return { name: ATTEMPTED[method] ?? 'capabilities', conditional: false };
}

/**
 * Records a refused access of `source` (as the caller named it) at the facade base `server`: outcome 4
 * (8 for a `status` of 500 or more) with `reason`.
 */
export function auditRefused(ctx: FacadeContext, req: RefusedAccess, source: string, server: string, interaction: Interaction, status: number, reason: string): void {
  const record = (caller: Caller | undefined): void => {
    ctx.audit.record(
      { interaction, source, caller, address: req.remoteAddress, server, requestId: req.requestId, traceparent: req.trace === undefined ? undefined : formatTraceparent(req.trace), observer: ctx.options.observerName },
      { outcome: status >= 500 ? 8 : 4, outcomeDesc: reason },
    );
  };
  let identified: Caller | Promise<Caller> | undefined;
  try {
    identified = ctx.callers.identify(req.headers);
  } catch {
    identified = undefined;
  }
  if (identified instanceof Promise) identified.then(record, () => record(undefined));
  else record(identified);
}
