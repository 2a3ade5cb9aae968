/**
 * A rate limit shared by replicas through a {@link KeyValueStore} (the one of the gateway's tokens):
 * a fixed one-second window whose `perSecond` slots are claimed with `setIfAbsent`, so that the store's
 * one atomic call is enough. The first free slot is found by binary search over the claimed prefix,
 * then claimed (moving on when another replica took it first): O(log n) store calls per request.
 * A store that fails refuses (fails closed).
 * @module
 */
import type { KeyValueStore } from '../lib/key-value-store.js';
import type { Rate, Verdict } from './rate-limiter.js';

/** Shared per-second windows. */
export class StoreWindows {
  readonly #store: KeyValueStore;
  readonly #now: () => number;

  constructor(store: KeyValueStore, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** Claims one of the `perSecond` slots of the current second (the burst is the window's size). */
  async take(key: string, rate: Rate): Promise<Verdict> {
    const now = this.#now();
    const second = Math.floor(now / 1000);
    const size = Math.max(1, Math.floor(rate.perSecond));
    const resetSeconds = 1;
    const slot = (i: number) => `fhirgate:rate:${key}:${second}:${i}`;
    try {
      let low = 0;
      let high = size;
      while (low < high) {
        const mid = (low + high) >> 1;
        if ((await this.#store.get(slot(mid))) === undefined) high = mid;
        else low = mid + 1;
      }
      for (let i = low; i < size; i++) {
        if (await this.#store.setIfAbsent(slot(i), '1', 2000)) return { allowed: true, limit: size, remaining: size - i - 1, resetSeconds, retryAfterSeconds: 0 };
      }
    } catch {
      // Fails closed: a store that cannot answer gives no slot.
    }
    return { allowed: false, limit: size, remaining: 0, resetSeconds, retryAfterSeconds: 1 };
  }
}
