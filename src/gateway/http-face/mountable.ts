/**
 * The HTTP face of a gateway: the {@link Mountable} the host mounts under the gateway's prefix.
 * @module
 */
import type { EventDispatcher } from '../../events/types.js';
import { json, type Mountable, type Route, type RouteRequest } from '../../mount/index.js';
import { checkFHIRVersion } from '../core/fhir-version.js';
import { capabilityStatement } from './capability-statement.js';
import { fhirReply, outcomeErrorReply } from './fhir-reply.js';
import type { GatewayFacts } from './gateway-facts.js';
import { gatewayOpenAPI } from './gateway-openapi.js';
import { componentStatus, statusDocument } from './gateway-status.js';
import { aggregateRoute, transformRoute } from './handler-routes.js';
import { PACKAGE_VERSION } from './package-version.js';
import { HandlerRegistry } from './registry.js';

const FUNCTIONS = ['sourceNames', 'poolStatus', 'emit', 'useEvents', 'close'] as const;

/**
 * Builds the gateway's face: `GET /transform/:type/:id`, `GET /aggregate/:type`, `GET /metadata`
 * (public: no API key, like a FHIR server's) and `GET /status`, its `/gateway/status` entry and its
 * OpenAPI paths. Handlers are looked up per request, so handlers registered after mounting are served.
 *
 * @example
 * ```ts
 * class AsyncFHIRGateway {
 *   [MOUNT](): Mountable {
 *     return gatewayMountable({ className: 'AsyncFHIRGateway', registry: this.#registry, ...this.#facts });
 *   }
 * }
 * ```
 */
export function gatewayMountable(facts: GatewayFacts): Mountable {
  const f = checkFacts(facts);
  let eventsOn: boolean | undefined;
  const eventsEnabled = (): boolean => (f.eventsEnabled ? f.eventsEnabled() : (eventsOn ?? true));
  const routes: readonly Route[] = Object.freeze([
    transformRoute(f),
    aggregateRoute(f),
    {
      method: 'GET',
      path: '/metadata',
      public: true,
      handle: (req: RouteRequest) =>
        fhirReply(200, capabilityStatement(f.registry, { className: f.className, baseUrl: req.baseUrl, version: PACKAGE_VERSION, fhirVersion: f.fhirVersion })),
    },
    {
      method: 'GET',
      path: '/status',
      handle: (req: RouteRequest) =>
        json(200, statusDocument(f, { prefix: prefixOf(req.baseUrl), version: PACKAGE_VERSION, eventsEnabled: eventsEnabled() })),
    },
  ]);
  return {
    kind: 'gateway',
    defaultPath: '/fhir',
    routes: () => routes,
    status: () => componentStatus(f),
    openapi: () => gatewayOpenAPI(f.className, f.registry),
    jwks: () => f.jwks?.() ?? [],
    useEvents(dispatcher: EventDispatcher | null): void {
      eventsOn = dispatcher !== null;
      f.useEvents(dispatcher);
    },
    close: () => f.close(),
    errorReply: outcomeErrorReply,
  };
}

/** The path part of the mount point's URL, without a trailing slash (`''` at the root). */
function prefixOf(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}

/** Validates the facts once and copies them, methods bound to the object they came from. */
function checkFacts(facts: GatewayFacts): GatewayFacts {
  if (typeof facts !== 'object' || facts === null) throw new TypeError('gatewayMountable: facts must be an object');
  if (typeof facts.className !== 'string' || facts.className === '') {
    throw new TypeError('gatewayMountable: facts.className must be a non-empty string');
  }
  if (!(facts.registry instanceof HandlerRegistry)) {
    throw new TypeError('gatewayMountable: facts.registry must be a HandlerRegistry');
  }
  for (const name of FUNCTIONS) {
    if (typeof facts[name] !== 'function') throw new TypeError(`gatewayMountable: facts.${name} must be a function`);
  }
  for (const name of ['eventsEnabled', 'jwks'] as const) {
    if (facts[name] !== undefined && typeof facts[name] !== 'function') throw new TypeError(`gatewayMountable: facts.${name} must be a function when given`);
  }
  return Object.freeze({
    className: facts.className,
    fhirVersion: checkFHIRVersion(facts.fhirVersion),
    registry: facts.registry,
    sourceNames: facts.sourceNames.bind(facts),
    poolStatus: facts.poolStatus.bind(facts),
    emit: facts.emit.bind(facts),
    useEvents: facts.useEvents.bind(facts),
    ...(facts.eventsEnabled ? { eventsEnabled: facts.eventsEnabled.bind(facts) } : {}),
    ...(facts.jwks ? { jwks: facts.jwks.bind(facts) } : {}),
    close: facts.close.bind(facts),
  });
}
