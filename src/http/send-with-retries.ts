/**
 * The retry loop around one request's tries: the decision table, `Retry-After`, backoff, and the
 * call's deadline and abort signal bounding every wait.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { isFhirgateError } from '../errors.js';
import { publish, requestRetryChannel } from './diagnostics.js';
import { failureOf } from './exchange.js';
import type { CheckedRequestOptions, HttpResponse } from './request-options.js';
import { parseRetryAfter } from './retry-after.js';
import { backoffDelay, retryAction } from './retry-policy.js';
import type { RetryPolicy } from './retry-policy.js';
import { pause } from './signals.js';

/**
 * One try. `freshSocket` is true when the previous try failed on a stale keep-alive socket: this try
 * must not reuse an idle one.
 *
 * @example
 * ```ts
 * const tryOnce: SendTry = (fresh) => exchange(target, fresh ? { ...options, agent: newAgent() } : options, signal);
 * ```
 */
export type SendTry = (freshSocket: boolean) => Promise<HttpResponse>;

/**
 * Runs `tryOnce` until it gives an answer that is not retried, or the retries are used up, and returns
 * the last answer (or throws the last error): the caller sees the real status of the last try. A
 * wait that would end after the deadline (`options.timeoutMs` from now) is not started; an abort
 * during a wait rejects at once.
 *
 * @example
 * ```ts
 * const res = await sendWithRetries(target, checked, signal, (fresh) => exchange(target, checked, signal));
 * ```
 */
export async function sendWithRetries(
  target: URL,
  options: CheckedRequestOptions,
  signal: AbortSignal | undefined,
  tryOnce: SendTry,
): Promise<HttpResponse> {
  const deadline = performance.now() + options.timeoutMs;
  const policy = options.retry;
  let retries = 0;
  let staleReplaced = false;
  for (let attempt = 1, fresh = false; ; attempt++) {
    let res: HttpResponse | undefined;
    let error: unknown;
    try {
      res = await tryOnce(fresh);
    } catch (err) {
      error = err;
    }
    const action = retryAction(options, res === undefined ? failureOf(error) : { status: res.status }, policy, staleReplaced);
    if (action === 'none' || (action === 'backoff' && retries >= policy.maxRetries)) return settled(res, error);
    fresh = action === 'fresh-socket';
    staleReplaced ||= fresh;
    const delayMs = fresh ? 0 : waitBefore(res, ++retries, policy);
    if (performance.now() + delayMs >= deadline) return settled(res, error);
    publish(requestRetryChannel, () => ({
      method: options.method,
      origin: target.origin,
      path: target.pathname,
      attempt: attempt + 1,
      delayMs,
      ...(res === undefined ? { error: isFhirgateError(error) ? error.code : 'ERR_NETWORK' } : { status: res.status }),
    }));
    if (delayMs > 0) await pause(delayMs, signal, `${options.method} ${target.origin}${target.pathname} (waiting to retry)`);
  }
}

/** The last try's answer, or its error thrown. */
function settled(res: HttpResponse | undefined, error: unknown): HttpResponse {
  if (res === undefined) throw error;
  return res;
}

/** The wait before retry number `retry`: the answer's `Retry-After` (capped), else the backoff. */
function waitBefore(res: HttpResponse | undefined, retry: number, policy: RetryPolicy): number {
  const asked = res === undefined ? undefined : parseRetryAfter(res.headers['retry-after'], Date.now());
  return asked === undefined ? backoffDelay(retry, policy) : Math.min(asked, policy.maxDelayMs);
}
