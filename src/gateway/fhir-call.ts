/**
 * One call to a source's FHIR server: the bearer token (own origin only), one retry after a 401, the
 * gateway's retry options (and a call's `retry: false`), and the mapping of non-2xx answers to
 * `FHIRHttpError`.
 * @module
 */
import { STATUS_CODES } from 'node:http';
import { FHIRHttpError, FhirgateError } from '../errors.js';
import { outcomeMessage } from '../fhir/index.js';
import { checkHeaders } from '../http/index.js';
import { SecretRedactor } from '../lib/redact-secrets.js';
import type { AgentPool, CheckedRequestOptions, HttpResponse, RetryPolicy } from '../http/index.js';
import type { Source } from './source-registry.js';

/**
 * What to send, and what it is about (for error messages).
 *
 * @example
 * ```ts
 * const call: FhirCall = { method: 'GET', url, operation: 'read', reference: 'Patient/1', signal: undefined };
 * ```
 */
export interface FhirCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: URL;
  /** A JSON body; sent as `application/fhir+json`. */
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The gateway operation (`read`, `search`, ...). */
  readonly operation: string;
  /** What it is about (`Patient/123`, `Patient`). */
  readonly reference: string;
  readonly signal: AbortSignal | undefined;
  /** Non-2xx statuses that are answers, not errors (delete's 404 and 410). */
  readonly expected?: readonly number[];
  /** Other origins than the source's this call may reach (bulk files on an origin the user allowed). */
  readonly origins?: readonly string[];
  /** True: no bearer token is sent (a bulk file whose manifest says `requiresAccessToken: false`). */
  readonly anonymous?: boolean;
  /** True: a 2xx body is left unread in `res.stream` (see `CheckedRequestOptions.stream`). */
  readonly stream?: boolean;
}

/**
 * The transport a call needs.
 *
 * @example
 * ```ts
 * const ctx: CallContext = { pool: new AgentPool(), maxResponseBytes: 10 * 1024 * 1024, retry: checkRetryOptions({ maxRetries: 2 }) };
 * ```
 */
export interface CallContext {
  readonly pool: AgentPool;
  readonly maxResponseBytes: number;
  /** The gateway's retry policy (for every source), checked once. */
  readonly retry: RetryPolicy;
}

/** Signals of gateway calls made with `retry: false`: every FHIR call made under one is sent once. */
const sendOnce = new WeakSet<AbortSignal>();

/**
 * The signal a gateway call hands down to the FHIR calls it makes. With `retry: false` it is a new
 * signal (following `options.signal`) marked so that {@link callFhir} sends each request once: the
 * setting reaches every request of the call without being threaded through each of them. Throws
 * `TypeError` for a `retry` that is not a boolean.
 *
 * @example
 * ```ts
 * const signal = callSignal({ signal: controller.signal, retry: false });
 * ```
 */
export function callSignal(options: { readonly signal?: AbortSignal | undefined; readonly retry?: boolean } | undefined): AbortSignal | undefined {
  const retry = options?.retry;
  if (retry !== undefined && typeof retry !== 'boolean') throw new TypeError('options.retry must be a boolean');
  if (retry !== false) return options?.signal;
  const signal = options?.signal === undefined ? new AbortController().signal : AbortSignal.any([options.signal]);
  sendOnce.add(signal);
  return signal;
}

/**
 * Sends `call` to `source`. A URL on another origin than the source's (or the call's own allowed
 * `origins`) is `ERR_CROSS_ORIGIN`: the token never goes anywhere else. Idempotent requests are retried as `ctx.retry` says (not when
 * the call's signal came from {@link callSignal} with `retry: false`). A 401 drops the token and the
 * call is sent once more with a new one. A non-2xx answer is `ERR_FHIR_HTTP` with the status of the
 * last try and the server's OperationOutcome.
 *
 * @example
 * ```ts
 * const res = await callFhir(ctx, source, { method: 'GET', url, operation: 'read', reference: 'Patient/1', signal });
 * ```
 */
export async function callFhir(ctx: CallContext, source: Source, call: FhirCall): Promise<HttpResponse> {
  if (call.url.origin !== source.origin && call.origins?.includes(call.url.origin) !== true) {
    throw new FhirgateError('ERR_CROSS_ORIGIN', `${call.operation} ${call.reference}: ${call.url.origin} is not the origin of source "${source.name}"`);
  }
  const headers: Record<string, string> = call.headers === undefined ? { accept: FHIR_JSON } : { accept: FHIR_JSON, ...checkHeaders(call.headers) };
  if (call.body !== undefined) headers['content-type'] = FHIR_JSON_BODY;
  const options: CheckedRequestOptions = {
    method: call.method,
    headers,
    body: call.body,
    signal: call.signal,
    timeoutMs: source.timeoutMs,
    maxResponseBytes: ctx.maxResponseBytes,
    agent: undefined,
    retry: call.signal !== undefined && sendOnce.has(call.signal) ? { ...ctx.retry, maxRetries: 0 } : ctx.retry,
    stream: call.stream === true,
  };
  const tokens = call.anonymous === true ? undefined : source.tokens;
  try {
    let token = tokens === undefined ? undefined : (tokens.current() ?? (await tokens.token(call.signal)));
    source.requests++;
    let res = await ctx.pool.send(call.url, token === undefined ? options : withToken(options, token));
    if (res.status === 401 && token !== undefined && tokens !== undefined) {
      tokens.invalidate(token);
      token = await tokens.token(call.signal);
      source.requests++;
      res = await ctx.pool.send(call.url, withToken(options, token));
    }
    if ((res.status >= 200 && res.status <= 299) || call.expected?.includes(res.status)) return res;
    throw httpError(res, call, new SecretRedactor({ secrets: [token] }));
  } catch (err) {
    source.errors++;
    throw err;
  }
}

const FHIR_JSON = 'application/fhir+json';
const FHIR_JSON_BODY = 'application/fhir+json; charset=utf-8';

/** `options` with the bearer token added to its headers. */
function withToken(options: CheckedRequestOptions, token: string): CheckedRequestOptions {
  return { ...options, headers: { ...options.headers, authorization: `Bearer ${token}` } };
}

/** The error for a non-2xx answer; the server's text, which may echo the bearer token, is redacted first. */
function httpError(res: HttpResponse, call: FhirCall, redact: SecretRedactor): FHIRHttpError {
  const body = tryJson(res.body);
  const outcome = (body as { resourceType?: unknown } | undefined)?.resourceType === 'OperationOutcome' ? redact.json(body) : undefined;
  const why = outcomeMessage(outcome);
  const text = `${res.status} ${STATUS_CODES[res.status] ?? 'Unknown Status'}`;
  return new FHIRHttpError(`${call.operation} ${call.reference} failed: ${text}${why === undefined ? '' : `: ${why}`}`, {
    status: res.status,
    operationOutcome: outcome,
    operation: call.operation,
    reference: call.reference,
  });
}

function tryJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The JSON object in a 2xx answer, checked to be a resource of `resourceType` (when given);
 * anything else is `ERR_FHIR_RESPONSE`.
 *
 * @example
 * ```ts
 * const patient = readResource(res, 'Patient', 'read Patient/1');
 * ```
 */
export function readResource(res: HttpResponse, resourceType: string | undefined, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(res.body.toString('utf8'));
  } catch (cause) {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with a body that is not JSON`, { cause, status: res.status });
  }
  const type = (value as { resourceType?: unknown } | null)?.resourceType;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof type !== 'string') {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with JSON that is not a resource`, { status: res.status });
  }
  if (resourceType !== undefined && type !== resourceType) {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: expected a ${resourceType}, the server sent a ${type.slice(0, 64)}`, { status: res.status });
  }
  return value as Record<string, unknown>;
}
