/**
 * The HTTP face of a gateway: the {@link Mountable} the host mounts under the gateway's prefix.
 * @module
 */
import type { EventDispatcher } from '../../events/types.js';
import { json, type Mountable, type Route, type RouteRequest } from '../../mount/index.js';
import { capabilityStatement } from './capability-statement.js';
import { fhirReply, outcomeErrorReply } from './fhir-reply.js';
import type { GatewayFacts } from './gateway-facts.js';
import { gatewayOpenAPI } from './gateway-openapi.js';
import { componentStatus, statusDocument } from './gateway-status.js';
import { aggregateRoute, transformRoute } from './handler-routes.js';
import { PACKAGE_VERSION } from './package-version.js';

/**
 * Builds the gateway's face: `GET /transform/:type/:id`, `GET /aggregate/:type`, `GET /metadata`
 * (public: no API key, like a FHIR server's) and `GET /status`, its `/gateway/status` entry and its
 * OpenAPI paths. Handlers are looked up per request, so handlers registered after mounting are served.
 */
export function gatewayMountable(f: GatewayFacts): Mountable {
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
        json(200, statusDocument(f, { prefix: prefixOf(req.baseUrl), version: PACKAGE_VERSION, eventsEnabled: f.events.enabled })),
    },
  ]);
  return {
    kind: 'gateway',
    defaultPath: '/fhir',
    routes: () => routes,
    status: () => componentStatus(f),
    openapi: () => gatewayOpenAPI(f.className, f.registry),
    jwks: () => f.jwks(),
    useEvents: (dispatcher: EventDispatcher | null) => f.events.use(dispatcher),
    close: () => f.close(),
    errorReply: outcomeErrorReply,
  };
}

/** The path part of the mount point's URL, without a trailing slash (`''` at the root). */
function prefixOf(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}
