/**
 * The time budget of one request: when it ends, and the caller's signal. Every wait of the request (for
 * a socket, for an answer) watches both; no `AbortSignal` is made for the time-out.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { FhirgateError } from '../errors.js';
import { startTimer, stopTimer } from './coarse-timers.js';
import type { TimerHandle } from './coarse-timers.js';
import { abortError } from './signals.js';

/**
 * The caller's signal and the moment the request's time is up (`performance.now()` milliseconds). A
 * wait arms one timer ({@link startTimer}) for the {@link Deadline.remaining} time and stops it when it
 * ends: the common path (no caller signal) allocates no `AbortSignal` and registers no listener.
 */
export class Deadline {
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
  readonly #at: number;

  constructor(signal: AbortSignal | undefined, timeoutMs: number) {
    this.signal = signal;
    this.#at = timeoutMs === Infinity ? Infinity : performance.now() + timeoutMs;
  }

  /** Milliseconds left, rounded up (waits armed together then share one timer list); `Infinity` without a time-out. */
  remaining(): number {
    return Math.ceil(this.#at - performance.now());
  }

  /** True when the caller has aborted or the time is up. */
  over(): boolean {
    return this.signal?.aborted === true || this.#at - performance.now() <= 0;
  }

  /** The error that ends the request: the caller's abort (`ERR_ABORTED`, or `ERR_TIMEOUT` for a `TimeoutError` reason), else `ERR_TIMEOUT`. */
  error(what: string): FhirgateError {
    return this.signal?.aborted === true ? abortError(this.signal, what) : timeoutError(what);
  }

  /**
   * Calls `listener.handleEvent()` when the caller aborts or the time is up, whichever comes first (it
   * may be called for both: make it idempotent). An object rather than a function, so that a wait
   * needs no closure. Returns the timer to hand back to {@link Deadline.disarm}.
   */
  arm(listener: EndListener): TimerHandle | undefined {
    this.signal?.addEventListener('abort', listener, { once: true });
    const ms = this.remaining();
    return ms === Infinity ? undefined : startTimer(Math.max(ms, 1), timeUp, listener);
  }

  /** Undoes {@link Deadline.arm}. */
  disarm(timer: TimerHandle | undefined, listener: EndListener): void {
    if (timer !== undefined) stopTimer(timer);
    this.signal?.removeEventListener('abort', listener);
  }
}

/**
 * What {@link Deadline.arm} calls when a wait ends early (an `EventListenerObject`, so that it also
 * serves as the abort listener).
 */
export interface EndListener {
  handleEvent(): void;
}

function timeUp(listener: EndListener): void {
  listener.handleEvent();
}

/**
 * `ERR_TIMEOUT` for `what`, with a `TimeoutError` `DOMException` as the cause (what
 * `AbortSignal.timeout` would have given).
 */
export function timeoutError(what: string): FhirgateError {
  const cause = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  return new FhirgateError('ERR_TIMEOUT', `${what} timed out`, { cause });
}
