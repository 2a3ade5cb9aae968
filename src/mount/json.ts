/**
 * JSON replies for route handlers: {@link json}, and the host's default error body {@link jsonErrorReply}.
 * @module
 */
import type { PublicError, RouteReply } from './contract.js';

/**
 * A JSON reply.
 *
 * @example
 * ```ts
 * const missing = json(404, { error: 'not found' });
 * const found = json(200, patient, { 'content-type': 'application/fhir+json' });
 * ```
 */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): RouteReply {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(value),
  };
}

/**
 * The default error reply, `{ "error": { "code", "message" } }`, for a component without its own
 * `errorReply` and for the host's own routes.
 *
 * @example
 * ```ts
 * jsonErrorReply({ status: 404, code: 'ERR_NOT_FOUND', message: 'no route' }); // 404 {"error":{...}}
 * ```
 */
export function jsonErrorReply(error: PublicError): RouteReply {
  return json(error.status, { error: { code: error.code, message: error.message } });
}
