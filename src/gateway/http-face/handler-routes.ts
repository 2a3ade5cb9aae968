/**
 * The two routes that serve user handlers: `GET /transform/:type/:id` and `GET /aggregate/:type`.
 * Handlers are looked up at request time, so handlers registered after mounting are served too.
 * @module
 */
import type { Route, RouteReply, RouteRequest } from '../../mount/index.js';
import { isFHIRId, isResourceType, type Bundle, type ResourceType } from '../../fhir/index.js';
import { isThenable } from '../../lib/is-thenable.js';
import { resolveForAggregate, type AggregateCall } from './aggregate-by-identifier.js';
import { fhirReply, outcomeReply } from './fhir-reply.js';
import type { GatewayFacts } from './gateway-facts.js';
import type { AggregateHandler, HandlerKind } from './registry.js';
import { replyForError } from './reply-for-error.js';

/** The route paths, relative to the gateway's prefix. */
const HANDLER_ROUTE_PATHS = Object.freeze({
  transform: '/transform/:type/:id',
  aggregate: '/aggregate/:type',
});

/**
 * `GET /transform/:type/:id?source=` → the transform handler's resource (200, FHIR JSON); emits
 * `fhir.<type>.transform` after a success.
 */
export function transformRoute(facts: GatewayFacts): Route {
  return { method: 'GET', path: HANDLER_ROUTE_PATHS.transform, handle: (req) => transform(facts, req) };
}

/**
 * `GET /aggregate/:type?patient_id=…&sources=a&sources=b` → the aggregate handler's Bundle (200, FHIR
 * JSON), the one id given to every source. `id` is accepted in place of `patient_id` (HealthChain's name);
 * `sources` may repeat or hold comma-separated names. `patient_identifier=system|value` in its place
 * resolves the patient per source first (see {@link resolveForAggregate}). Emits
 * `fhir.<type>.aggregate` after a success.
 */
export function aggregateRoute(facts: GatewayFacts): Route {
  return { method: 'GET', path: HANDLER_ROUTE_PATHS.aggregate, handle: (req) => aggregate(facts, req) };
}

/** Runs the transform handler; a handler that answers synchronously is replied to without a promise. */
function transform(facts: GatewayFacts, req: RouteRequest): RouteReply | Promise<RouteReply> {
  const type = req.params['type'] ?? '';
  if (!isResourceType(type)) return notHandled('transform', type);
  const handler = facts.registry.transformHandler(type);
  if (handler === undefined) return notHandled('transform', type);
  const id = req.params['id'] ?? '';
  if (!isFHIRId(id)) return outcomeReply(400, 'value', 'the id is not a FHIR id ([A-Za-z0-9-.]{1,64})');
  const source = req.query.get('source') || undefined;
  let result: unknown;
  try {
    result = handler(id, source);
  } catch (err) {
    return transformFailed(err, req, type, source);
  }
  if (!isThenable(result)) return transformed(facts, req, type, id, source, result);
  return Promise.resolve(result).then(
    (value) => transformed(facts, req, type, id, source, value),
    (err: unknown) => transformFailed(err, req, type, source),
  );
}

function transformFailed(err: unknown, req: RouteRequest, type: ResourceType, source: string | undefined): RouteReply {
  return replyForError(err, req, { kind: 'transform', type, sourcesNamed: source !== undefined });
}

/** The reply to a transform handler's result, and its event. */
function transformed(facts: GatewayFacts, req: RouteRequest, type: ResourceType, id: string, source: string | undefined, result: unknown): RouteReply {
  if (!hasResourceType(result, type)) return handlerBug(req, 'transform', type, result);
  facts.events.emit(eventName(type, 'transform'), {
    resource_type: type,
    resource_id: id,
    source: source ?? null,
    operation: 'transform',
  });
  return fhirReply(200, result);
}

/** Runs the aggregate handler; like {@link transform}, a reply without an async frame per request waiting for its sources. */
function aggregate(facts: GatewayFacts, req: RouteRequest): RouteReply | Promise<RouteReply> {
  const type = req.params['type'] ?? '';
  if (!isResourceType(type)) return notHandled('aggregate', type);
  const handler = facts.registry.aggregateHandler(type);
  if (handler === undefined) return notHandled('aggregate', type);
  const sources = sourceList(req.query);
  if (req.query.has('patient_identifier')) {
    if (req.query.has('patient_id') || req.query.has('id')) return outcomeReply(400, 'invalid', 'give patient_id or patient_identifier, not both');
    return resolveForAggregate(facts, req, type, sources).then((r) => ('reply' in r ? r.reply : runAggregate(facts, req, type, handler, r.call)));
  }
  const patientId = req.query.get('patient_id') || req.query.get('id') || '';
  if (patientId === '') return outcomeReply(400, 'required', 'the patient_id query parameter is required');
  if (!isFHIRId(patientId)) return outcomeReply(400, 'value', 'patient_id is not a FHIR id ([A-Za-z0-9-.]{1,64})');
  return runAggregate(facts, req, type, handler, { patientId, sources });
}

/** Calls the aggregate handler and replies to what it gives. */
function runAggregate(facts: GatewayFacts, req: RouteRequest, type: ResourceType, handler: AggregateHandler, call: AggregateCall): RouteReply | Promise<RouteReply> {
  const { patientId, sources, patient } = call;
  let result: unknown;
  try {
    result = call.skip === undefined ? handler(patientId, sources, patient) : call.skip;
  } catch (err) {
    return aggregateFailed(err, req, type, sources);
  }
  if (!isThenable(result)) return aggregated(facts, req, type, call, result);
  return Promise.resolve(result).then(
    (value) => aggregated(facts, req, type, call, value),
    (err: unknown) => aggregateFailed(err, req, type, sources),
  );
}

function aggregateFailed(err: unknown, req: RouteRequest, type: ResourceType, sources: string[] | undefined): RouteReply {
  return replyForError(err, req, { kind: 'aggregate', type, sourcesNamed: sources !== undefined });
}

/** The reply to an aggregate handler's result (with the call's outcome entries), and its event. */
function aggregated(facts: GatewayFacts, req: RouteRequest, type: ResourceType, call: AggregateCall, result: unknown): RouteReply {
  if (!hasResourceType(result, 'Bundle')) return handlerBug(req, 'aggregate', type, result);
  facts.events.emit(eventName(type, 'aggregate'), {
    resource_type: type,
    patient_id: call.patientId,
    sources: call.sources?.join(',') ?? null,
    operation: 'aggregate',
    ...call.extra,
  });
  const bundle = result as Bundle;
  return fhirReply(200, call.outcomes === undefined || call.outcomes.length === 0 ? bundle : { ...bundle, entry: [...(bundle.entry ?? []), ...call.outcomes] });
}

/** `sources=a&sources=b` and `sources=a,b` both give `['a', 'b']`; none gives `undefined`. */
function sourceList(query: URLSearchParams): string[] | undefined {
  const names = query
    .getAll('sources')
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length === 0 ? undefined : [...new Set(names)];
}

function eventName(type: ResourceType, kind: HandlerKind): string {
  return `fhir.${type.toLowerCase()}.${kind}`;
}

function hasResourceType(value: unknown, type: string): boolean {
  return typeof value === 'object' && value !== null && (value as { resourceType?: unknown }).resourceType === type;
}

function notHandled(kind: HandlerKind, type: string): RouteReply {
  if (!isResourceType(type)) {
    return outcomeReply(404, 'not-found', `${JSON.stringify(type.slice(0, 64))} is not a FHIR resource type`);
  }
  return outcomeReply(404, 'not-found', `no ${kind} handler is registered for ${type}`);
}

function handlerBug(req: RouteRequest, kind: HandlerKind, type: ResourceType, result: unknown): RouteReply {
  const expected = kind === 'transform' ? type : 'Bundle';
  const got = typeof result === 'object' && result !== null ? String((result as { resourceType?: unknown }).resourceType) : typeof result;
  req.log.error(`${kind} handler returned the wrong kind of answer`, { operation: kind, resource_type: type, expected, got });
  return outcomeReply(500, 'exception', `the ${kind} handler for ${type} did not return a ${expected} resource`);
}
