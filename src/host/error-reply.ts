/**
 * Errors to HTTP replies. Under a gateway prefix the body is an OperationOutcome
 * (`application/fhir+json`); elsewhere it is `{ "error": { "code", "message" } }`. A 5xx never carries the
 * error's own message (it may hold internals): the caller gets a generic text and the request id, the
 * log gets the details.
 * @module
 */
import { isFhirgateError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { operationOutcome } from '../fhir/index.js';
import { json } from '../mount.js';
import type { RouteReply } from '../mount.js';

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  ERR_BAD_REQUEST: 400,
  ERR_UNAUTHORIZED: 401,
  ERR_NOT_FOUND: 404,
  ERR_BODY_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_TIMEOUT: 504,
  ERR_CLOSED: 503,
};

/**
 * The HTTP status for an error: for `ERR_FHIR_HTTP` an upstream 404 or 410 passes through and any other
 * upstream failure is a 502; else the error's own `status` when it is 400–599; else the code's usual
 * status (`ERR_BAD_REQUEST` 400, `ERR_UNAUTHORIZED` 401, `ERR_NOT_FOUND` 404, `ERR_BODY_TOO_LARGE` 413,
 * `ERR_UNSUPPORTED_MEDIA_TYPE` 415, `ERR_CLOSED` 503, `ERR_TIMEOUT` 504); else 500.
 *
 * @example
 * ```ts
 * statusOf(new FhirgateError('ERR_BODY_TOO_LARGE', 'too big')); // 413
 * statusOf(new Error('boom'));                                    // 500
 * ```
 */
export function statusOf(error: unknown): number {
  if (!isFhirgateError(error)) return 500;
  const status = error.status;
  if (error.code === 'ERR_FHIR_HTTP') return status === 404 || status === 410 ? status : 502;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) return status;
  return STATUS_BY_CODE[error.code] ?? 500;
}

const ISSUE_TYPE: Record<number, string> = { 400: 'invalid', 401: 'login', 403: 'forbidden', 404: 'not-found', 405: 'not-supported', 410: 'deleted', 413: 'too-costly', 415: 'not-supported' };

const SERVER_FAILURE: Record<number, string> = { 502: 'an upstream server failed', 503: 'the service is unavailable', 504: 'an upstream server timed out' };

/** What the error reply says: the code and a message safe to send. */
export interface PublicError {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
}

/**
 * The status, code and sendable message of an error. 5xx messages are generic and name the request id.
 *
 * @example
 * ```ts
 * describeError(new Error('db password wrong'), 'req-1').message; // 'internal error (request id req-1)'
 * ```
 */
export function describeError(error: unknown, requestId: string): PublicError {
  const status = statusOf(error);
  const code: ErrorCode = isFhirgateError(error) ? error.code : 'ERR_HANDLER';
  if (status >= 500) {
    return { status, code, message: `${SERVER_FAILURE[status] ?? 'internal error'} (request id ${requestId})` };
  }
  return { status, code, message: (error as Error).message };
}

/**
 * The reply for a {@link PublicError}: an OperationOutcome when `fhir` is true, else the JSON error body.
 *
 * @example
 * ```ts
 * errorReply({ status: 404, code: 'ERR_NOT_FOUND', message: 'no route' }, true); // OperationOutcome, 404
 * ```
 */
export function errorReply(error: PublicError, fhir: boolean): RouteReply {
  if (!fhir) return json(error.status, { error: { code: error.code, message: error.message } });
  const outcome = operationOutcome('error', ISSUE_TYPE[error.status] ?? 'exception', error.message);
  return json(error.status, outcome, { 'content-type': 'application/fhir+json; charset=utf-8' });
}
