/**
 * Errors to HTTP replies. The status comes from the one table in `errors.ts`; the body is the
 * mounted component's own (its `errorReply`, e.g. an OperationOutcome under a gateway's prefix) or,
 * for the host's own routes and components without one, `{ "error": { "code", "message" } }`. A 5xx
 * never carries the error's own message (it may hold internals): the caller gets a generic text and
 * the request id, the log gets the details.
 * @module
 */
import { httpStatusOf, isFhirgateError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { jsonErrorReply } from '../mount/index.js';
import type { Logger, PublicError, RouteReply } from '../mount/index.js';

const SERVER_FAILURE: Record<number, string> = { 502: 'an upstream server failed', 503: 'the service is unavailable', 504: 'an upstream server timed out' };

/** The status, code and sendable message of an error. 5xx messages are generic and name the request id. */
export function describeError(error: unknown, requestId: string): PublicError {
  const status = httpStatusOf(error);
  const code: ErrorCode = isFhirgateError(error) ? error.code : 'ERR_HANDLER';
  if (status >= 500) {
    return { status, code, message: `${SERVER_FAILURE[status] ?? 'internal error'} (request id ${requestId})` };
  }
  return { status, code, message: (error as Error).message };
}

/**
 * The reply for a {@link PublicError}: the component's own `errorReply` when the path is under one that
 * has it, else the JSON error body. A component's `errorReply` that throws is logged and the JSON body
 * is sent instead.
 */
export function replyToPublicError(error: PublicError, own: ((error: PublicError) => RouteReply) | undefined, log: Logger): RouteReply {
  if (own === undefined) return jsonErrorReply(error);
  try {
    return own(error);
  } catch (failure) {
    log.error('errorReply of a mounted component failed', { error: (failure as Error)?.message });
    return jsonErrorReply(error);
  }
}
