/**
 * The gateway's status documents: the body of `GET <prefix>/status` and its entry in the host's
 * `/gateway/status`. Neither ever holds a connection string, a token or a secret.
 * @module
 */
import type { GatewayFacts } from './gateway-facts.js';
import { handledOperations } from './handled-operations.js';

/** Stands in for the pool status of a gateway without a connection pool. */
const NO_POOL_NOTE = Object.freeze({ note: 'the synchronous FHIRGateway has no connection pool' });

/** What `/status` needs besides the facts. */
export interface StatusContext {
  /** The path of the gateway's mount point (`/fhir`; `''` at the root), prefixed to each endpoint. */
  readonly prefix: string;
  readonly version: string;
  readonly eventsEnabled: boolean;
  /** The `timestamp`, default now. */
  readonly now?: Date;
}

/** The gateway's entry in `/gateway/status`: `{ status: 'active', sources, connection_pool }`. */
export function componentStatus(facts: GatewayFacts): Record<string, unknown> {
  return { status: 'active', sources: facts.sourceNames(), connection_pool: facts.poolStatus() ?? NO_POOL_NOTE };
}

/** The body of `GET <prefix>/status`. */
export function statusDocument(facts: GatewayFacts, context: StatusContext): Record<string, unknown> {
  const names = facts.sourceNames();
  return {
    gateway_type: facts.className,
    status: 'active',
    version: context.version,
    timestamp: (context.now ?? new Date()).toISOString(),
    sources: { count: names.length, names },
    connection_pool: facts.poolStatus() ?? NO_POOL_NOTE,
    supported_operations: handledOperations(facts.registry).map((op) => ({
      type: op.type,
      operation: op.kind,
      endpoint: `${context.prefix}${op.path}`,
      method: 'GET',
      parameters: op.parameters.map((p) => p.name),
    })),
    events: { enabled: context.eventsEnabled },
  };
}
