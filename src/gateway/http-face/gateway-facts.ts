/**
 * What a gateway tells its HTTP face about itself. Both gateway variants build one and hand it to
 * {@link gatewayMountable}; the face never reaches further into the gateway.
 * @module
 */
import type { EventDispatcher, EventPayload } from '../../events/types.js';
import type { HandlerRegistry } from './registry.js';

/**
 * The facts and hooks a gateway offers its HTTP face.
 *
 * @example
 * ```ts
 * const facts: GatewayFacts = {
 *   className: 'AsyncFHIRGateway',
 *   registry,
 *   sourceNames: () => [...sources.keys()],
 *   poolStatus: () => pool.status(),
 *   emit: (name, payload) => dispatcher?.emit(name, payload),
 *   useEvents: (d) => { dispatcher = d },
 *   close: () => gw.close(),
 * };
 * ```
 */
export interface GatewayFacts {
  /** The gateway's class name (`AsyncFHIRGateway`, `FHIRGateway`): `gateway_type` and OpenAPI tag. */
  readonly className: string;
  /** The FHIR version reported at `/metadata` (`CapabilityStatement.fhirVersion`). Default `4.0.1`. */
  readonly fhirVersion?: string;
  /** The gateway's handlers, read at request time. */
  readonly registry: HandlerRegistry;
  /** The registered source names, in registration order. Never a connection string. */
  sourceNames(): string[];
  /** The connection pool status (JSON-safe, no secret), or `null` when the gateway has no pool. */
  poolStatus(): Record<string, unknown> | null;
  /** The public JWKs of the gateway's assertion sources, for the host's `/.well-known/jwks.json`. Default none. */
  jwks?(): readonly Record<string, unknown>[];
  /** Sends an event through the gateway's dispatcher (a no-op when its events are off). */
  emit(eventName: string, payload: EventPayload): void;
  /** The host's dispatcher when its events are on, `null` when they are off. */
  useEvents(dispatcher: EventDispatcher | null): void;
  /** True when the gateway emits events. When absent, the face assumes so until `useEvents(null)`. */
  eventsEnabled?(): boolean;
  /** Closes the gateway. Idempotent. */
  close(): Promise<void>;
}
