/**
 * When a request is sent again, and after how long: the retry options, their one-time validation, the
 * decision table and the exponential backoff with full jitter.
 * @module
 */
import { booleanOption, numberOption } from '../lib/options.js';

const MILLISECONDS = Object.freeze({ min: 0, unit: 'milliseconds' });

/** The retry options of `request()` and `AgentPool.request()`. */
export interface RetryOptions {
  /** `false` sends the request once (a stale keep-alive socket is still replaced once). Default `true`. */
  retry?: boolean;
  /** Retries after the first try. Default 2. */
  maxRetries?: number;
  /** Statuses that are retried (idempotent requests only). Default `[429, 502, 503, 504]`. */
  retryOn?: readonly number[];
  /** Milliseconds: the backoff before retry `n` is a random time in `[0, min(maxRetryDelayMs, retryBaseDelayMs × 2^(n-1)))`. Default 100. */
  retryBaseDelayMs?: number;
  /** Milliseconds any one wait lasts at most, a `Retry-After` included. Default 10 000. */
  maxRetryDelayMs?: number;
}

/** The retry options after validation. `retry: false` is `maxRetries: 0`. */
export interface RetryPolicy {
  readonly maxRetries: number;
  readonly retryOn: ReadonlySet<number>;
  readonly retryBaseDelayMs: number;
  readonly maxRetryDelayMs: number;
}

/** Defaults: 2 retries of 429, 502, 503 and 504, a 100 ms backoff base, waits of 10 s at most. */
export const RETRY_DEFAULTS = Object.freeze({
  maxRetries: 2,
  retryOn: Object.freeze([429, 502, 503, 504]) as readonly number[],
  retryBaseDelayMs: 100,
  maxRetryDelayMs: 10_000,
});

/**
 * Validates and copies the retry options once; `TypeError`/`RangeError` name the option
 * (`prefix` + name, e.g. `options.maxRetries`).
 */
export function checkRetryOptions(options: RetryOptions, prefix = 'options.'): RetryPolicy {
  const retry = booleanOption(options.retry, `${prefix}retry`, true);
  const { retryOn = RETRY_DEFAULTS.retryOn } = options;
  if (!Array.isArray(retryOn) || !retryOn.every((s) => Number.isInteger(s) && s >= 400 && s <= 599)) {
    throw new TypeError(`${prefix}retryOn must be an array of HTTP statuses from 400 to 599`);
  }
  const maxRetries = numberOption(options.maxRetries, `${prefix}maxRetries`, RETRY_DEFAULTS.maxRetries, { integer: true, min: 0 });
  return Object.freeze({
    maxRetries: retry ? maxRetries : 0,
    retryOn: new Set(retryOn),
    retryBaseDelayMs: numberOption(options.retryBaseDelayMs, `${prefix}retryBaseDelayMs`, RETRY_DEFAULTS.retryBaseDelayMs, MILLISECONDS),
    maxRetryDelayMs: numberOption(options.maxRetryDelayMs, `${prefix}maxRetryDelayMs`, RETRY_DEFAULTS.maxRetryDelayMs, MILLISECONDS),
  });
}

/**
 * The backoff before retry number `retry` (1 for the first): full jitter, a uniformly random time in
 * `[0, min(maxRetryDelayMs, retryBaseDelayMs × 2^(retry-1)))`. `random` returns a number in `[0, 1)`.
 */
export function backoffDelay(retry: number, policy: Pick<RetryPolicy, 'retryBaseDelayMs' | 'maxRetryDelayMs'>, random: () => number = Math.random): number {
  return random() * Math.min(policy.maxRetryDelayMs, policy.retryBaseDelayMs * 2 ** (retry - 1));
}

/**
 * How a try failed without an answer: `refused` (the connection was never made), `reset` (reset,
 * broken pipe or hang-up before any response byte), `stale` (the same on a reused keep-alive socket),
 * `other` (time-out, abort, DNS, size limit, an answer cut short, ...).
 */
export type TryFailure = 'refused' | 'reset' | 'stale' | 'other';

/** How one try ended: an answer's status, or a failure. */
export type TryOutcome = { readonly status: number } | { readonly failure: TryFailure };

/**
 * What to do after a try: nothing (`none`), send again at once on a new socket (`fresh-socket`), or
 * wait a backoff and send again (`backoff`, when retries are left).
 */
export type RetryAction = 'none' | 'fresh-socket' | 'backoff';

/**
 * True for requests that may be sent twice: GET, HEAD, OPTIONS, PUT, DELETE, and a conditional create
 * (a POST with `If-None-Exist`). `headers` has lower-case names.
 */
export function isIdempotent(method: string, headers: Readonly<Record<string, string>>): boolean {
  if (method === 'POST') return headers['if-none-exist'] !== undefined;
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || method === 'PUT' || method === 'DELETE';
}

/**
 * The decision table. A stale keep-alive socket is replaced once, whatever the method (the server
 * closed it while idle, so it never read the request). A refused connection is retried whatever the
 * method (nothing reached the server). Resets before any answer, and answers whose status is in
 * `retryOn`, are retried for idempotent requests only: a plain POST that may have reached the server
 * is never sent twice.
 */
export function retryAction(
  request: { readonly method: string; readonly headers: Readonly<Record<string, string>> },
  outcome: TryOutcome,
  policy: RetryPolicy,
  staleReplaced: boolean,
): RetryAction {
  if ('status' in outcome) {
    return policy.retryOn.has(outcome.status) && isIdempotent(request.method, request.headers) ? 'backoff' : 'none';
  }
  if (outcome.failure === 'stale' && !staleReplaced) return 'fresh-socket';
  if (outcome.failure === 'refused') return 'backoff';
  if (outcome.failure === 'other') return 'none';
  return isIdempotent(request.method, request.headers) ? 'backoff' : 'none';
}
