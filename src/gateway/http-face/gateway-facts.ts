/**
 * What a gateway tells its HTTP face about itself. Both gateway variants build one, already checked,
 * and hand it to {@link gatewayMountable}; the face never reaches further into the gateway.
 * @module
 */
import type { GatewayEvents } from '../core/gateway-events.js';
import type { AggregateView } from '../identity/aggregate-view.js';
import type { HandlerRegistry } from './registry.js';

/** The facts and hooks a gateway offers its HTTP face. */
export interface GatewayFacts {
  /** The gateway's class name (`AsyncFHIRGateway`, `FHIRGateway`): `gateway_type` and OpenAPI tag. */
  readonly className: string;
  /** The FHIR version reported at `/metadata` (`CapabilityStatement.fhirVersion`), checked by the gateway's options. */
  readonly fhirVersion: string;
  /** The gateway's handlers, read at request time. */
  readonly registry: HandlerRegistry;
  /** The gateway's event gate: the face emits the handler events through it and the host switches it. */
  readonly events: Pick<GatewayEvents, 'enabled' | 'use' | 'emit'>;
  /** The registered source names, in registration order. Never a connection string. */
  sourceNames(): string[];
  /** The connection pool status (JSON-safe, no secret), or `null` when the gateway has no pool. */
  poolStatus(): Record<string, unknown> | null;
  /** The public JWKs of the gateway's assertion sources, for the host's `/.well-known/jwks.json`. */
  jwks(): readonly Record<string, unknown>[];
  /** Closes the gateway. Idempotent. */
  close(): Promise<void>;
  /**
   * Resolves `system|value` in `sources` (default all) for the aggregate endpoint; absent when the gateway
   * has no identity settings. A `TypeError` for a malformed identifier.
   */
  aggregatePatient?(identifier: string, sources: string[] | undefined): Promise<AggregateView>;
}
