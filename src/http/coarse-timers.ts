/**
 * Timers for time-outs that almost never fire: one shared tick instead of a Node timer per request.
 * @module
 */
import { performance } from 'node:perf_hooks';

/** How often the shared tick looks for due timers: a coarse timer fires up to this much late. */
export const COARSE_RESOLUTION_MS = 500;

/** Below this a timer is a plain Node timer: half a second late would matter to a short time-out. */
const COARSE_FROM_MS = 1000;

/** A timer on the shared tick. */
class CoarseTimer {
  constructor(
    readonly at: number,
    public fire: ((arg: never) => void) | undefined,
    readonly arg: unknown,
  ) {}
}

/** What {@link startTimer} returns, for {@link stopTimer}. */
export type TimerHandle = CoarseTimer | NodeJS.Timeout;

let timers: CoarseTimer[] = [];
let ticking: NodeJS.Timeout | undefined;

/**
 * Calls `fire(arg)` after `ms` milliseconds, unless stopped first. A time-out of a second or more goes
 * on one shared, unreferenced tick (every {@link COARSE_RESOLUTION_MS} ms, only while timers are set)
 * and may fire up to that much late; shorter ones are Node timers. A request's time-out and an idle
 * socket's expiry are set and cleared once per request and almost never fire: a `setTimeout` and
 * `clearTimeout` per request were 3–5% of a gateway read at concurrency 16 (A/B against a raw
 * keep-alive agent with and without them); here setting one is an array push and stopping it a field
 * write. (undici keeps its socket time-outs on a shared coarse tick for the same reason.)
 *
 * @example
 * ```ts
 * const timer = startTimer(30_000, (req) => req.destroy(), req);
 * // ... when the answer came:
 * stopTimer(timer);
 * ```
 */
export function startTimer<A>(ms: number, fire: (arg: A) => void, arg: A): TimerHandle {
  if (ms < COARSE_FROM_MS) return setTimeout(fire, ms, arg);
  const timer = new CoarseTimer(performance.now() + ms, fire as (arg: never) => void, arg);
  timers.push(timer);
  ticking ??= setTimeout(tick, COARSE_RESOLUTION_MS).unref();
  return timer;
}

/**
 * Stops a timer of {@link startTimer}; stopping one that fired or was stopped does nothing.
 *
 * @example
 * ```ts
 * stopTimer(startTimer(5000, console.log, 'never'));
 * ```
 */
export function stopTimer(timer: TimerHandle): void {
  if (timer instanceof CoarseTimer) timer.fire = undefined;
  else clearTimeout(timer);
}

/** Fires the due timers, drops the stopped ones, and ticks again while any is left. */
function tick(): void {
  ticking = undefined;
  const now = performance.now();
  const due: CoarseTimer[] = [];
  const left: CoarseTimer[] = [];
  for (const timer of timers) {
    if (timer.fire === undefined) continue;
    if (timer.at <= now) due.push(timer);
    else left.push(timer);
  }
  timers = left;
  if (left.length > 0) ticking = setTimeout(tick, COARSE_RESOLUTION_MS).unref();
  for (const timer of due) {
    const fire = timer.fire;
    timer.fire = undefined;
    fire?.(timer.arg as never);
  }
}
