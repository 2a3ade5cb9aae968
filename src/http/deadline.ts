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
    if (this.signal !== undefined) abortWaits(this.signal).push(listener);
    const ms = this.remaining();
    return ms === Infinity ? undefined : startTimer(Math.max(ms, 1), timeUp, listener);
  }

  /** Undoes {@link Deadline.arm}. */
  disarm(timer: TimerHandle | undefined, listener: EndListener): void {
    if (timer !== undefined) stopTimer(timer);
    const armed = this.signal === undefined ? undefined : waits.get(this.signal);
    const at = armed === undefined ? -1 : armed.indexOf(listener);
    if (at !== -1) armed!.splice(at, 1);
  }
}

/**
 * The waits armed on each caller signal, in the order they were armed. A signal gets one `abort` listener
 * of its own, the first time a wait is armed on it, which ends the waits in its list: arming a wait is a
 * push, disarming it a search from the oldest (usually one or two waits per signal: a connection's
 * requests). An `EventTarget` listener added and removed per wait cost 2.5% of a facade read (its requests
 * all carry their connection's signal; `node --cpu-prof`, `node:internal/event_target`), and a signal shared
 * by more than ten calls in flight drew Node's `MaxListenersExceededWarning`. (A `Set` per signal was
 * slower than the listener: a small set that is added to and deleted from rehashes every few calls.)
 */
const waits = new WeakMap<AbortSignal, EndListener[]>();

function abortWaits(signal: AbortSignal): EndListener[] {
  let armed = waits.get(signal);
  if (armed === undefined) {
    const list: EndListener[] = (armed = []);
    waits.set(signal, list);
    signal.addEventListener('abort', () => endWaits(signal, list), { once: true });
  }
  return armed;
}

/** Ends every wait armed on `signal`, oldest first; a wait disarmed by an earlier one's end is skipped. */
function endWaits(signal: AbortSignal, armed: EndListener[]): void {
  while (armed.length > 0) armed.shift()!.handleEvent();
  waits.delete(signal);
}

/** What {@link Deadline.arm} calls when a wait ends early (an object, so that a wait needs no closure). */
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
