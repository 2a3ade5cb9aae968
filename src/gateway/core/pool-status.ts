/**
 * The gateway's `getPoolStatus()` document.
 * @module
 */
import type { AgentPoolStatus } from '../../http/pool-types.js';
import type { Source } from './source-registry.js';

/**
 * Counts for one source. `active`/`idle`/`queued` are its origin's (shared by sources on one origin).
 *
 * @example
 * ```ts
 * const { active, idle, errors } = gw.getPoolStatus().sources.epic ?? {};
 * ```
 */
export interface SourcePoolStatus {
  origin: string;
  active: number;
  idle: number;
  queued: number;
  requests: number;
  errors: number;
}

/**
 * A JSON-safe picture of the connection pool, in camelCase (HTTP bodies use {@link poolStatusBody}). Holds
 * no secret, no token, no connection string.
 *
 * @example
 * ```ts
 * const status: PoolStatus = gw.getPoolStatus(); // { limits, totals, sources }
 * ```
 */
export interface PoolStatus {
  /** `{ maxConnections, maxKeepaliveConnections, keepaliveExpiry }` */
  limits: AgentPoolStatus['limits'];
  totals: AgentPoolStatus['totals'];
  sources: Record<string, SourcePoolStatus>;
}

/** Joins the pool's counts per origin with the sources' own counters. */
export function poolStatus(pool: AgentPoolStatus, sources: readonly Source[]): PoolStatus {
  const byOrigin = new Map(pool.origins.map((o) => [o.origin, o]));
  const entries = sources.map((s): [string, SourcePoolStatus] => {
    const o = byOrigin.get(s.origin);
    return [s.name, { origin: s.origin, active: o?.active ?? 0, idle: o?.idle ?? 0, queued: o?.queued ?? 0, requests: s.requests, errors: s.errors }];
  });
  return { limits: { ...pool.limits }, totals: { ...pool.totals }, sources: Object.fromEntries(entries) };
}

/**
 * The pool status as HTTP bodies show it (`/gateway/status`, `<prefix>/status`): the limits in
 * snake_case, as the rest of those bodies; counts and sources as they are.
 */
export function poolStatusBody(status: PoolStatus): Record<string, unknown> {
  const { maxConnections, maxKeepaliveConnections, keepaliveExpiry } = status.limits;
  return {
    limits: { max_connections: maxConnections, max_keepalive_connections: maxKeepaliveConnections, keepalive_expiry: keepaliveExpiry },
    totals: status.totals,
    sources: status.sources,
  };
}
