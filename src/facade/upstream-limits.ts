/**
 * The limits in front of each source: its token bucket, its caller's bucket (when the caller's policy
 * sets a rate) and its cap on calls in flight. With a shared store the buckets become per-second
 * windows counted in the store, so that replicas share one limit.
 * @module
 */
import type { KeyValueStore } from '../lib/key-value-store.js';
import type { Caller } from './caller.js';
import type { SourceLimits } from './options.js';
import { TokenBuckets } from './rate-limiter.js';
import type { Rate, Verdict } from './rate-limiter.js';
import { StoreWindows } from './store-windows.js';

/** A granted slot (release it when the upstream answered), or a refusal. */
export type Slot =
  | { readonly refused: false; readonly verdict: Verdict | undefined; release(): void }
  | { readonly refused: true; readonly verdict: Verdict; readonly reason: string };

/** A granted slot: one object, no closure, per call (released once, however often `release` is called). */
class GrantedSlot {
  readonly refused = false;
  readonly verdict: Verdict | undefined;
  readonly #source: string;
  readonly #counts: Map<string, number>;
  #released = false;

  constructor(verdict: Verdict | undefined, source: string, counts: Map<string, number>) {
    this.verdict = verdict;
    this.#source = source;
    this.#counts = counts;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#counts.set(this.#source, (this.#counts.get(this.#source) ?? 1) - 1);
  }
}

/** The facade's upstream limits. */
export class UpstreamLimits {
  readonly #limits: Readonly<Record<string, SourceLimits>>;
  readonly #buckets = new TokenBuckets();
  readonly #windows: StoreWindows | undefined;
  readonly #inFlight = new Map<string, number>();

  constructor(limits: Readonly<Record<string, SourceLimits>>, store: KeyValueStore | undefined) {
    this.#limits = limits;
    this.#windows = store === undefined ? undefined : new StoreWindows(store);
  }

  /**
   * Takes a slot on `source` for `caller`: rate (source's, then caller's), then in-flight cap. At once
   * when no rate applies (no promise on the common path).
   */
  acquire(source: string, caller: Caller): Slot | Promise<Slot> {
    const limits = this.#limits[source] ?? this.#limits['*'];
    if (limits?.perSecond === undefined && caller.rate === undefined) return this.#hold(source, limits, undefined);
    return this.#acquireRated(source, caller, limits);
  }

  async #acquireRated(source: string, caller: Caller, limits: SourceLimits | undefined): Promise<Slot> {
    let verdict: Verdict | undefined;
    if (limits?.perSecond !== undefined) {
      verdict = await this.#take(`source:${source}`, { perSecond: limits.perSecond, burst: limits.burst ?? Math.max(1, Math.ceil(limits.perSecond)) });
      if (!verdict.allowed) return { refused: true, verdict, reason: `source "${source}" is over its rate of ${limits.perSecond}/s` };
    }
    if (caller.rate !== undefined) {
      const own = await this.#take(`caller:${caller.id}@${source}`, caller.rate);
      if (!own.allowed) return { refused: true, verdict: own, reason: `caller "${caller.name}" is over its rate of ${caller.rate.perSecond}/s` };
      verdict ??= own;
    }
    return this.#hold(source, limits, verdict);
  }

  /** The in-flight cap: a slot, or a refusal when `source` has its cap of calls in flight. */
  #hold(source: string, limits: SourceLimits | undefined, verdict: Verdict | undefined): Slot {
    const cap = limits?.maxInFlight;
    const busy = this.#inFlight.get(source) ?? 0;
    if (cap !== undefined && busy >= cap) {
      return { refused: true, verdict: { allowed: false, limit: cap, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 }, reason: `source "${source}" has ${cap} calls in flight` };
    }
    this.#inFlight.set(source, busy + 1);
    return new GrantedSlot(verdict, source, this.#inFlight);
  }

  /** Calls in flight per source. */
  inFlight(): Record<string, number> {
    return Object.fromEntries(this.#inFlight);
  }

  #take(key: string, rate: Rate): Promise<Verdict> | Verdict {
    return this.#windows === undefined ? this.#buckets.take(key, rate) : this.#windows.take(key, rate);
  }
}
