/**
 * Abort signals: the coded error an aborted signal turns into, and a wait that an abort cuts short.
 * @module
 */
import { FhirgateError } from '../errors.js';

/**
 * The coded error for an aborted signal: `ERR_TIMEOUT` when its reason is a `TimeoutError` (from
 * `AbortSignal.timeout`), else `ERR_ABORTED`. The reason is kept as the cause.
 */
export function abortError(signal: AbortSignal, what: string): FhirgateError {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  return timedOut
    ? new FhirgateError('ERR_TIMEOUT', `${what} timed out`, { cause: reason })
    : new FhirgateError('ERR_ABORTED', `${what} was aborted`, { cause: reason });
}

/**
 * Resolves after `ms` milliseconds; rejects at once with {@link abortError} when `signal` aborts
 * (before or during the wait).
 */
export function pause(ms: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal, what));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal, what));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
