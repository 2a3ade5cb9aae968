/**
 * One call to a source's FHIR server: the bearer token (own origin only), one retry after a 401, the
 * gateway's retry options (and a call's `retry: false`, a field of the call), and the mapping of non-2xx answers to
 * `FHIRHTTPError`.
 * @module
 */
import { STATUS_CODES } from 'node:http';
import { FHIRHTTPError, FhirgateError } from '../../errors.js';
import { outcomeMessage } from '../../fhir/outcome-message.js';
import { addHeaders } from '../../http/request-options.js';
import type { AgentPool } from '../../http/agent-pool.js';
import type { CheckedRequestOptions, HTTPResponse, HTTPTarget } from '../../http/request-options.js';
import type { RetryPolicy } from '../../http/retry-policy.js';
import { MAX_RESOURCE_DEPTH, nestsDeeperThan } from '../../lib/json-depth.js';
import { CredentialEcho } from '../../lib/credential-echo.js';
import { SecretRedactor } from '../../lib/redact-secrets.js';
import type { Source } from './source-registry.js';
import { upstreamLabel } from './interaction-label.js';

/** What to send, and what it is about (for error messages). */
export interface FHIRCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly url: HTTPTarget;
  /** A body; sent as `application/fhir+json` unless `headers` name another `content-type`. */
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The gateway operation (`read`, `search`, ...). */
  readonly operation: string;
  /** What it is about (`Patient/123`, `Patient`). */
  readonly reference: string;
  readonly signal: AbortSignal | undefined;
  /** `false` sends the request once, whatever the gateway's retry options. Default `true`. */
  readonly retry?: boolean;
  /** Non-2xx statuses that are answers, not errors (delete's 404 and 410); `'all'`: every status is an answer (a raw exchange). */
  readonly expected?: readonly number[] | 'all';
  /** Other origins than the source's this call may reach (bulk files on an origin the user allowed). */
  readonly origins?: readonly string[];
  /** True: no bearer token is sent (a bulk file whose manifest says `requiresAccessToken: false`). */
  readonly anonymous?: boolean;
  /** True: a 2xx body is left unread in `res.stream` (see `CheckedRequestOptions.stream`). */
  readonly stream?: boolean;
}

/** The transport a call needs. */
export interface CallContext {
  readonly pool: AgentPool;
  readonly maxResponseBytes: number;
  /** The gateway's retry policy (for every source), checked once. */
  readonly retry: RetryPolicy;
}

/**
 * Sends `call` to `source`. A URL on another origin than the source's (or the call's own allowed
 * `origins`) is `ERR_CROSS_ORIGIN`: the token never goes anywhere else. Idempotent requests are retried
 * as `ctx.retry` says (not when the call says `retry: false`). A 401 drops the token and the
 * call is sent once more with a new one. A non-2xx answer is `ERR_FHIR_HTTP` with the status of the
 * last try and the server's OperationOutcome.
 *
 * Promise callbacks rather than an async function: a call waiting for a socket holds one reaction and
 * its two callbacks, not a suspended frame (its generator, registers and the await's closures: ~250 B
 * more per call, times the ~2,300 calls queued in the soak at 1,000 connections).
 */
export function callFHIR(ctx: CallContext, source: Source, call: FHIRCall): Promise<HTTPResponse> {
  if (call.url.origin !== source.origin && call.origins?.includes(call.url.origin) !== true) {
    return Promise.reject(new FhirgateError('ERR_CROSS_ORIGIN', `${call.operation} ${call.reference}: ${call.url.origin} is not the origin of source "${source.name}"`));
  }
  const tokens = call.anonymous === true ? undefined : source.tokens;
  let token: string | undefined;
  try {
    token = tokens?.current();
  } catch (err) {
    return rejected(source, err);
  }
  let options: CheckedRequestOptions;
  try {
    options = requestOptions(ctx, source, call, token);
  } catch (err) {
    return Promise.reject(err);
  }
  if (tokens === undefined || token !== undefined) return send(ctx, source, call, options, tokens, token);
  return newToken(tokens, call).then(
    (fresh) => send(ctx, source, call, withToken(options, fresh), tokens, fresh),
    (err: unknown) => failed(source, err),
  );
}

/** A new token from the source's token manager; a manager that throws at once rejects instead (counted as the call's error by the caller). */
function newToken(tokens: NonNullable<Source['tokens']>, call: FHIRCall): Promise<string> {
  try {
    return tokens.token(call.signal);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The request's options: FHIR JSON accepted (and sent, with a body), the bearer `token` (over the call's
 * own `authorization`), the source's time-out, the call's retry setting. A GET's headers are one literal:
 * a header added afterwards went to a second backing store per call. The call's own headers are checked
 * into that literal: checked into a copy first and spread in, they were 2% of a facade read's CPU on
 * Node 24 (`node --cpu-prof`: `requestOptions`, `checkHeaders`).
 */
function requestOptions(ctx: CallContext, source: Source, call: FHIRCall, token: string | undefined): CheckedRequestOptions {
  let headers: Record<string, string>;
  if (call.headers === undefined) {
    headers = token === undefined ? { accept: FHIR_JSON } : { accept: FHIR_JSON, authorization: `Bearer ${token}` };
  } else {
    headers = addHeaders({ accept: FHIR_JSON }, call.headers);
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  }
  if (call.body !== undefined) headers['content-type'] ??= FHIR_JSON_BODY;
  return {
    method: call.method,
    headers,
    body: call.body,
    signal: call.signal,
    timeoutMs: source.timeoutMs,
    maxResponseBytes: ctx.maxResponseBytes,
    agent: undefined,
    retry: call.retry === false ? { ...ctx.retry, maxRetries: 0 } : ctx.retry,
    stream: call.stream === true,
    tls: source.tls,
    label: upstreamLabel(source, call.method, call.url.pathname),
  };
}

/** Sends the request, whose options carry `token` (none for an anonymous call); a 401 answer to a token is sent once more with a new one. */
function send(ctx: CallContext, source: Source, call: FHIRCall, options: CheckedRequestOptions, tokens: Source['tokens'], token: string | undefined): Promise<HTTPResponse> {
  source.requests++;
  let sent: Promise<HTTPResponse>;
  try {
    sent = ctx.pool.sendChecked(call.url, options);
  } catch (err) {
    return rejected(source, err);
  }
  return sent.then(
    (res) => (res.status === 401 && token !== undefined && tokens !== undefined ? resend(ctx, source, call, options, tokens, token) : answer(source, call, res, token)),
    (err: unknown) => failed(source, err),
  );
}

/** After a 401: the token dropped, a new one, the request once more; its answer is final. */
function resend(ctx: CallContext, source: Source, call: FHIRCall, options: CheckedRequestOptions, tokens: NonNullable<Source['tokens']>, stale: string): Promise<HTTPResponse> {
  try {
    tokens.invalidate(stale);
  } catch (err) {
    return rejected(source, err);
  }
  // Sent without the token manager: the answer to the new token is final, whatever its status.
  return newToken(tokens, call).then(
    (token) => send(ctx, source, call, withToken(options, token), undefined, token),
    (err: unknown) => failed(source, err),
  );
}

/**
 * A 2xx (or expected) answer; else `ERR_FHIR_HTTP`, counted as the source's error. A raw exchange's
 * answer (handed on to others as it came: the FHIR facade's) that sends the bearer token back, in any
 * encoding, is `ERR_CREDENTIALS_ECHOED` instead: the token is the gateway's, never its callers'.
 */
function answer(source: Source, call: FHIRCall, res: HTTPResponse, token: string | undefined): HTTPResponse {
  if (call.expected === 'all') {
    if (token !== undefined && echoes(res, token)) return failed(source, new FhirgateError('ERR_CREDENTIALS_ECHOED', `${call.operation} ${call.reference}: the server sent back the gateway's bearer token; its answer (${res.status}) was withheld`));
    return res;
  }
  if ((res.status >= 200 && res.status <= 299) || call.expected?.includes(res.status)) return res;
  let err: unknown;
  try {
    err = httpError(res, call, new SecretRedactor({ secrets: [token] }));
  } catch (thrown) {
    err = thrown;
  }
  return failed(source, err);
}

/** True when `res` (its body or a header) holds `token` in any encoding; a token too short to search for is never echoed. */
function echoes(res: HTTPResponse, token: string): boolean {
  if (token.length < 8) return false;
  const echo = new CredentialEcho(token);
  if (echo.in(res.body.toString('latin1'))) return true;
  for (const value of Object.values(res.headers)) if ((typeof value === 'string' && echo.in(value)) || (Array.isArray(value) && value.some((v) => echo.in(v)))) return true;
  return false;
}

/** Counts a failed call of the source's and throws its error. */
function failed(source: Source, err: unknown): never {
  source.errors++;
  throw err;
}

/** {@link failed} for an error thrown before any promise: counted, then a rejection. */
function rejected(source: Source, err: unknown): Promise<never> {
  source.errors++;
  return Promise.reject(err);
}

const FHIR_JSON = 'application/fhir+json';
const FHIR_JSON_BODY = 'application/fhir+json; charset=utf-8';

/** `options` with the bearer token added to its headers. */
function withToken(options: CheckedRequestOptions, token: string): CheckedRequestOptions {
  return { ...options, headers: { ...options.headers, authorization: `Bearer ${token}` } };
}

/** The error for a non-2xx answer; the server's text, which may echo the bearer token, is redacted first. */
function httpError(res: HTTPResponse, call: FHIRCall, redact: SecretRedactor): FHIRHTTPError {
  const body = tryJSON(res.body);
  const outcome = (body as { resourceType?: unknown } | undefined)?.resourceType === 'OperationOutcome' ? redact.json(body) : undefined;
  const why = outcomeMessage(outcome);
  const text = `${res.status} ${STATUS_CODES[res.status] ?? 'Unknown Status'}`;
  return new FHIRHTTPError(`${call.operation} ${call.reference} failed: ${text}${why === undefined ? '' : `: ${why}`}`, {
    status: res.status,
    operationOutcome: outcome,
    operation: call.operation,
    reference: call.reference,
  });
}

/** The parsed body, or `undefined` when it is not JSON or nests too deep to carry as an OperationOutcome. */
function tryJSON(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (nestsDeeperThan(text, MAX_RESOURCE_DEPTH)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
