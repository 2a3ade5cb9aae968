/**
 * Turns what a transform or aggregate handler threw into an OperationOutcome reply. The details go to
 * the request's log; the caller gets a status and a generic message, never a stack or a secret.
 * @module
 */
import { ERROR_CODES, httpStatusOf, isFhirgateError, type ErrorCode } from '../../errors.js';
import type { RouteReply, RouteRequest } from '../../mount/index.js';
import type { IssueType } from '../../fhir/operation-outcome.js';
import { logUserCodeFailure } from '../../lib/user-code-failure.js';
import { outcomeReply } from './fhir-reply.js';
import type { HandlerKind } from './registry.js';

/** What the failing call was about. */
export interface FailureContext {
  readonly kind: HandlerKind;
  readonly type: string;
  /** True when the request named its source(s), so an unknown source is the caller's mistake. */
  readonly sourcesNamed: boolean;
}

type Mapping = readonly [status: number, issue: IssueType, diagnostics: string];
type Outcome = readonly [issue: IssueType, diagnostics: string];

const UPSTREAM_FAILED: Outcome = ['transient', 'an upstream FHIR server could not be reached or gave an unusable answer'];

/** The OperationOutcome of the upstream failures that say more than {@link UPSTREAM_FAILED}, and of `ERR_CLOSED`. */
const OUTCOME_OF: Partial<Record<ErrorCode, Outcome>> = {
  ERR_TIMEOUT: ['timeout', 'an upstream FHIR server did not answer in time'],
  ERR_AUTH_TOKEN: ['security', 'the gateway could not obtain an access token from an upstream server'],
  ERR_DISCOVERY: ['security', "the gateway could not use an upstream server's SMART configuration"],
  ERR_CLOSED: ['transient', 'the gateway is shutting down'],
};

/**
 * The failures that are not the handler's bug, with what the OperationOutcome says: every upstream
 * failure of the one record (`ERROR_CODES` in `errors.ts`, which also gives their status) and the
 * gateway's own shutdown.
 */
const HANDLER_FAILURE_OUTCOMES: Readonly<Partial<Record<ErrorCode, Outcome>>> = Object.freeze(Object.fromEntries(
  (Object.keys(ERROR_CODES) as ErrorCode[])
    .filter((code) => code !== 'ERR_FHIR_HTTP' && (ERROR_CODES[code].upstream || code === 'ERR_CLOSED'))
    .map((code) => [code, OUTCOME_OF[code] ?? UPSTREAM_FAILED]),
));

/**
 * The reply for an error thrown by a handler:
 * - `ERR_FHIR_HTTP` 404 / 410 from upstream → the same status, naming the reference;
 * - `ERR_FHIR_HTTP` with any other status (401 and 403 included) → 502;
 * - `ERR_TIMEOUT` → 504; every other upstream failure (network, token, discovery, unusable answer, Bulk Data) → 502;
 *   `ERR_CLOSED` → 503;
 * - `ERR_UNKNOWN_SOURCE` when the request named its sources → 400;
 * - anything else → 500 with a generic message.
 */
export function replyForError(err: unknown, req: RouteRequest, context: FailureContext): RouteReply {
  const [status, issue, diagnostics] = mapError(err, context);
  const fields = {
    operation: context.kind,
    resource_type: context.type,
    error_code: isFhirgateError(err) ? err.code : undefined,
    upstream_status: isFhirgateError(err) ? err.status : undefined,
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  };
  logUserCodeFailure(req.log, status >= 500 ? 'error' : 'warn', `${context.kind} handler failed`, fields, err);
  return outcomeReply(status, issue, diagnostics);
}

function mapError(err: unknown, context: FailureContext): Mapping {
  if (isFhirgateError(err, 'ERR_FHIR_HTTP')) return [httpStatusOf(err), ...upstreamHTTP(err.status, (err as { reference?: unknown }).reference)];
  if (isFhirgateError(err, 'ERR_UNKNOWN_SOURCE') && context.sourcesNamed) {
    return [400, 'value', 'unknown source; GET the status endpoint for the registered source names'];
  }
  const mapped = isFhirgateError(err) ? HANDLER_FAILURE_OUTCOMES[err.code] : undefined;
  return mapped === undefined ? [500, 'exception', `the ${context.kind} handler for ${context.type} failed`] : [httpStatusOf(err), ...mapped];
}

function upstreamHTTP(status: number | undefined, reference: unknown): Outcome {
  const what = typeof reference === 'string' && reference.length <= 200 ? reference : 'the requested resource';
  if (status === 404) return ['not-found', `${what} was not found at the source`];
  if (status === 410) return ['deleted', `${what} was deleted at the source`];
  if (status === 401 || status === 403) return ['security', `an upstream FHIR server refused the gateway's credentials (HTTP ${status})`];
  return ['exception', `an upstream FHIR server answered HTTP ${status ?? 'error'}`];
}
