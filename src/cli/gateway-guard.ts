/**
 * The gateway's own routes held to the facade's callers: when `fhirgate serve` has callers, the
 * transform and aggregate routes answer only an identified caller that may read the type from every
 * source the request names (never a patient-bound one: a handler's answer can't be cut to a
 * compartment), and `<prefix>/status` and the gateway's entry in `/gateway/status` show upstream
 * origins only to a caller with `sources: '*'` and no patient.
 * @module
 */
import { isFhirgateError } from '../errors.js';
import { mayUseSource, type Caller } from '../facade/caller.js';
import { CallerDirectory } from '../facade/identify-caller.js';
import type { FHIRFacadeOptions } from '../facade/index.js';
import { scopeAccess } from '../facade/scopes.js';
import { outcomeReply } from '../gateway/http-face/fhir-reply.js';
import { MOUNT, type Mountable, type MountableComponent, type Route, type RouteReply, type RouteRequest } from '../mount/index.js';

/** The answer to a request without (or with wrong) credentials. */
function unauthorized(): RouteReply {
  const reply = outcomeReply(401, 'login', 'credentials are required (Authorization: Bearer <key or token>, or X-API-Key)');
  return { ...reply, headers: { ...reply.headers, 'www-authenticate': 'Bearer' } };
}

/** True when `caller` may see upstream origins: every source, no patient. */
function seesOrigins(caller: Caller): boolean {
  return caller.sources === '*' && caller.patient === undefined;
}

/** The caller of a request, or `undefined` for credentials missing or wrong. */
async function callerOf(directory: CallerDirectory, req: RouteRequest): Promise<Caller | undefined> {
  try {
    return await directory.identify(req.headers);
  } catch (error) {
    if (isFhirgateError(error, 'ERR_UNAUTHORIZED')) return undefined;
    throw error;
  }
}

/** The sources a transform (`source`) or aggregate (`sources`, repeated or comma-separated) request names; `'*'` when none (the handler may read any). */
function namedSources(req: RouteRequest): '*' | string[] {
  const names = [...req.query.getAll('source'), ...req.query.getAll('sources')].flatMap((v) => v.split(',')).map((n) => n.trim()).filter((n) => n !== '');
  return names.length === 0 ? '*' : names;
}

/** Why `caller` may not run a handler route for `type` with the sources `req` names, or `undefined` when it may. */
function refusal(caller: Caller, type: string, req: RouteRequest): string | undefined {
  if (caller.patient !== undefined) return `caller "${caller.name}" is bound to a patient; a transform or aggregate answer cannot be cut to a compartment`;
  if (scopeAccess(caller.scopes, type, 'r') !== 'open') return `caller "${caller.name}" may not read ${type}`;
  const sources = namedSources(req);
  if (sources === '*') return caller.sources === '*' ? undefined : `caller "${caller.name}" may not use every source: name the sources (source= or sources=)`;
  const denied = sources.find((s) => !mayUseSource(caller, s));
  return denied === undefined ? undefined : `caller "${caller.name}" may not use source "${denied}"`;
}

/** A transform or aggregate route that first identifies the caller and checks its policy. */
function guardedHandlerRoute(route: Route, directory: CallerDirectory): Route {
  return {
    ...route,
    handle: async (req) => {
      const caller = await callerOf(directory, req);
      if (caller === undefined) return unauthorized();
      const why = refusal(caller, req.params['type'] ?? '', req);
      return why === undefined ? route.handle(req) : outcomeReply(403, 'forbidden', why);
    },
  };
}

/** A status document with each source's `origin` left out of its connection pool. */
function withoutOrigins(document: Record<string, unknown>): Record<string, unknown> {
  const pool = document['connection_pool'] as { sources?: Record<string, Record<string, unknown>> } | undefined;
  if (pool?.sources === undefined) return document;
  const sources = Object.fromEntries(Object.entries(pool.sources).map(([name, { origin: _origin, ...rest }]) => [name, rest]));
  return { ...document, connection_pool: { ...pool, sources } };
}

/** `<prefix>/status`: the whole document to a caller that may see origins, without them to anyone else; wrong credentials are 401. */
function guardedStatusRoute(route: Route, directory: CallerDirectory): Route {
  return {
    ...route,
    handle: async (req) => {
      const given = req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined;
      const caller = given ? await callerOf(directory, req) : undefined;
      if (given && caller === undefined) return unauthorized();
      const reply = await route.handle(req);
      if (caller !== undefined && seesOrigins(caller)) return reply;
      if ((reply.status ?? 200) !== 200 || typeof reply.body !== 'string') return reply;
      return { ...reply, body: JSON.stringify(withoutOrigins(JSON.parse(reply.body) as Record<string, unknown>)) };
    },
  };
}

/**
 * The gateway as the host mounts it when callers are configured: its transform and aggregate routes
 * (and any other route it has, but `/metadata`) held to the callers, its status without origins except to a caller that may see them (the host's
 * `/gateway/status` has no caller: it never shows them). `/metadata` stays public.
 */
export function guardedGateway(gateway: MountableComponent, callers: FHIRFacadeOptions['callers']): MountableComponent {
  const directory = new CallerDirectory(callers ?? [], false);
  const face = gateway[MOUNT]();
  const routes = face.routes().map((route) => {
    // Fail closed: every route but the public statement and the status reads source data through a handler.
    if (route.path === '/metadata') return route;
    if (route.path === '/status') return guardedStatusRoute(route, directory);
    return guardedHandlerRoute(route, directory);
  });
  const guarded: Mountable = { ...face, routes: () => routes, status: () => withoutOrigins(face.status()) };
  return { [MOUNT]: () => guarded };
}
