/**
 * The two POST routes of a CDS service: the service call and its feedback. Both check, in this order:
 * the service id (404), the client JWT (401; 503 when the replay store fails), the content type (415),
 * the body size (413) and the body (400); then the call fills the prefetch (412), runs the handler and checks its cards (500).
 * @module
 */
import { isFhirgateError } from '../errors.js';
import { json, type Logger, type RouteReply, type RouteRequest } from '../mount/index.js';
import type { EventPayload } from '../events/types.js';
import { logUserCodeFailure } from '../lib/user-code-failure.js';
import { CDSError, cdsErrorReply } from './cds-error.js';
import type { ClientAuth } from './client-auth.js';
import { validateFeedback } from './feedback.js';
import { fillPrefetch, type PrefetchOptions } from './prefetch.js';
import type { ServiceEntry } from './registry-entry.js';
import type { CDSHandlerContext, JSONObject } from './types.js';
import { validateResponse } from './validate-card.js';
import { parseJSONObject, validateRequest } from './validate-request.js';

/** What the routes need from the service that owns them. */
export interface CallEnvironment {
  readonly bodyLimit: number;
  /** How prefetch fetches behave; `allowed` is the service-wide list, which a service's own list replaces. */
  readonly prefetch: Omit<PrefetchOptions, 'signal' | 'log'>;
  /** The service with that id; throws `ERR_CLOSED` (503) once closed. */
  lookup(id: string): ServiceEntry | undefined;
  /** The client authentication that applies to a service, or `null` for none. */
  authFor(entry: ServiceEntry): ClientAuth | null;
  emit(name: string, payload: EventPayload): void;
}

const JSON_TYPE = /^application\/(?:fhir\+)?json\s*(?:;|$)/i;
/** A `charset` parameter other than UTF-8 (JSON is UTF-8, RFC 8259 §8.1): such a body is refused, not misread. */
const OTHER_CHARSET = /;\s*charset\s*=\s*(?!"?utf-?8"?\s*(?:;|$))/i;
const UNAUTHORIZED = new CDSError('ERR_UNAUTHORIZED', 'the CDS client could not be authenticated', 401);
/** A signed token whose `jti` cannot be checked against replay: refused, but not as bad credentials. */
const STORE_UNAVAILABLE = new CDSError('ERR_STORE_UNAVAILABLE', 'the token replay check is unavailable; try again shortly', 503);

interface Admitted {
  entry: ServiceEntry;
  body: JSONObject;
  context: CDSHandlerContext;
}

async function admit(req: RouteRequest, env: CallEnvironment): Promise<Admitted> {
  const id = req.params.id ?? '';
  const entry = env.lookup(id);
  if (entry === undefined) throw new CDSError('ERR_NOT_FOUND', `no CDS service "${id}"`, 404);
  const context: CDSHandlerContext = { serviceId: id, signal: req.signal, log: req.log };
  const auth = env.authFor(entry);
  if (auth !== null) {
    try {
      context.client = await auth.verify(req.headers.authorization, req.url.href);
    } catch (err) {
      if (isFhirgateError(err, 'ERR_STORE_UNAVAILABLE')) {
        req.log.error('CDS replay store unavailable: call refused', { service_id: id, reason: err.message });
        throw STORE_UNAVAILABLE;
      }
      req.log.warn('CDS client authentication failed', { service_id: id, reason: err instanceof Error ? err.message : 'unknown' });
      throw UNAUTHORIZED;
    }
  }
  const contentType = req.headers['content-type'] ?? '';
  if (!JSON_TYPE.test(contentType)) {
    throw new CDSError('ERR_UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json', 415);
  }
  if (OTHER_CHARSET.test(contentType)) {
    throw new CDSError('ERR_UNSUPPORTED_MEDIA_TYPE', 'the body must be UTF-8 JSON (charset=utf-8 or none)', 415);
  }
  let bytes: Buffer;
  try {
    bytes = await req.bytes(env.bodyLimit);
  } catch (err) {
    if (isFhirgateError(err, 'ERR_BODY_TOO_LARGE')) {
      throw new CDSError('ERR_BODY_TOO_LARGE', `the body is larger than ${env.bodyLimit} bytes`, 413, undefined, err);
    }
    throw err;
  }
  return { entry, body: parseJSONObject(bytes), context };
}

/** Wraps what a user handler throws, so that it never passes for one of the room's own errors. */
class HandlerFailure {
  constructor(readonly cause: unknown) {}
}

/** The user handler's answer; what it throws or rejects with becomes a {@link HandlerFailure} (no async frame of its own per call waiting for the handler). */
function runHandler<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(run()).then(undefined, handlerFailed);
  } catch (err) {
    return Promise.reject(new HandlerFailure(err));
  }
}

function handlerFailed(err: unknown): never {
  throw new HandlerFailure(err);
}

function failure(err: unknown, log: Logger, serviceId: string | undefined): RouteReply {
  // The client went away mid-body: nobody to answer; the host logs it once, as a client event.
  if (isFhirgateError(err, 'ERR_ABORTED')) throw err;
  if (err instanceof CDSError) {
    if (err.code === 'ERR_CDS_CARD') log.error('CDS service returned an invalid response', { service_id: serviceId, field: err.field });
    const headers: Record<string, string> = err.status === 401 ? { 'www-authenticate': 'Bearer' } : err.code === 'ERR_STORE_UNAVAILABLE' ? { 'retry-after': '1' } : {};
    return cdsErrorReply(err, headers);
  }
  const cause = err instanceof HandlerFailure ? err.cause : err;
  logUserCodeFailure(log, 'error', 'CDS service handler failed', { service_id: serviceId, error: cause instanceof Error ? cause.message : String(cause) }, cause);
  return cdsErrorReply(new CDSError('ERR_HANDLER', 'the CDS service failed to process the request', 500));
}

/** `POST /cds-services/:id`. */
export async function handleServiceCall(req: RouteRequest, env: CallEnvironment): Promise<RouteReply> {
  try {
    const { entry, body, context } = await admit(req, env);
    const { hook } = entry.discovery;
    const request = validateRequest(body, hook);
    const allowed = entry.fhirServers ?? env.prefetch.allowed;
    request.prefetch = await fillPrefetch(request, entry.discovery.prefetch ?? {}, { ...env.prefetch, allowed, signal: req.signal, log: req.log });
    const response = validateResponse(await runHandler(() => entry.handler(request, context)));
    const patientId = request.context.patientId;
    env.emit(`cdshooks.${hook}`, {
      service_id: context.serviceId,
      hook,
      hook_instance: request.hookInstance,
      cards_count: response.cards.length,
      ...(typeof patientId === 'string' ? { patient_id: patientId } : {}),
    });
    return json(200, response);
  } catch (err) {
    return failure(err, req.log, req.params.id);
  }
}

/** `POST /cds-services/:id/feedback`. */
export async function handleFeedback(req: RouteRequest, env: CallEnvironment): Promise<RouteReply> {
  try {
    const { entry, body, context } = await admit(req, env);
    const items = validateFeedback(body);
    await runHandler(() => entry.feedback?.(items, context));
    env.emit('cdshooks.feedback', {
      service_id: context.serviceId,
      feedback_count: items.length,
      outcomes: items.map((i) => i.outcome).join(','),
    });
    return json(200, {});
  } catch (err) {
    return failure(err, req.log, req.params.id);
  }
}
