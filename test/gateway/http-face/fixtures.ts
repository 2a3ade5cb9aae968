/**
 * Test helpers for the gateway face: GatewayFacts over a fresh registry, and reply parsing (the fake
 * RouteRequest is test/support/route-request.ts).
 */
import type { EventDispatcher, EventPayload } from '../../../src/events/types.js';
import type { Mountable, Route, RouteReply, RouteRequest } from '../../../src/mount/index.js';
import { HandlerRegistry } from '../../../src/gateway/http-face/registry.js';
import type { GatewayFacts } from '../../../src/gateway/http-face/gateway-facts.js';

export interface FactsProbe {
  facts: GatewayFacts;
  registry: HandlerRegistry;
  events: Array<[string, EventPayload]>;
  dispatchers: Array<EventDispatcher | null>;
  closes: number;
}

/** GatewayFacts over a fresh registry, recording what the face does with them. */
export function makeFacts(overrides: Partial<GatewayFacts> = {}): FactsProbe {
  const registry = new HandlerRegistry();
  const probe: FactsProbe = {
    registry,
    events: [],
    dispatchers: [],
    closes: 0,
    facts: undefined as unknown as GatewayFacts,
  };
  let enabled = true;
  probe.facts = {
    className: 'AsyncFHIRGateway',
    fhirVersion: '4.0.1',
    registry,
    events: {
      get enabled() {
        return enabled;
      },
      emit: (name, payload) => void probe.events.push([name, payload]),
      use: (dispatcher) => {
        probe.dispatchers.push(dispatcher);
        enabled = dispatcher !== null;
      },
    },
    sourceNames: () => ['epic', 'cerner'],
    poolStatus: () => ({ limits: { max_connections: 100 }, totals: { active: 0, idle: 1, queued: 0 } }),
    jwks: () => [],
    close: async () => {
      probe.closes += 1;
    },
    ...overrides,
  };
  return probe;
}

/** The route of `mountable` with that method and path. */
export function routeOf(mountable: Mountable, path: string, method = 'GET'): Route {
  const route = mountable.routes().find((r) => r.path === path && r.method === method);
  if (route === undefined) throw new Error(`no route ${method} ${path}`);
  return route;
}

export interface ParsedReply {
  status: number;
  contentType: string | undefined;
  body: any;
  text: string;
}

/** Calls a route and parses its JSON answer. */
export async function call(route: Route, req: RouteRequest): Promise<ParsedReply> {
  const reply: RouteReply = await route.handle(req);
  const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body ?? new Uint8Array()).toString('utf8');
  return { status: reply.status ?? 200, contentType: reply.headers?.['content-type'], body: JSON.parse(text), text };
}
