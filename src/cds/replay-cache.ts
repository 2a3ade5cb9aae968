/**
 * Remembers the `jti` of accepted client tokens until they expire, so that a captured token cannot be
 * played again. Bounded, and failing closed: an id is never forgotten before it expires; when the cache
 * is full of ids that have not expired, a new id is refused until some expire.
 * @module
 */
import { ExpiryHeap } from './expiry-heap.js';

/**
 * What {@link ReplayCache.remember} decided: `accepted` (new, now remembered), `replayed` (already
 * remembered and not expired), `full` (new, but no room: every remembered id is still live).
 */
export type ReplayVerdict = 'accepted' | 'replayed' | 'full';

/** A bounded set of token ids with expiry times. */
export class ReplayCache {
  readonly #max: number;
  /** id → expiry, in seconds since the epoch. */
  readonly #seen = new Map<string, number>();
  /** The same ids by expiry: an id leaves both at once, when it expires. */
  readonly #expiries = new ExpiryHeap();

  constructor(maxEntries: number) {
    this.#max = maxEntries;
  }

  /** How many ids are remembered. */
  get size(): number {
    return this.#seen.size;
  }

  /**
   * Forgets the ids that expired before `nowSeconds`, then records `id` until `expiresAt` (seconds)
   * unless it is a replay or there is no room.
   */
  remember(id: string, expiresAt: number, nowSeconds = Date.now() / 1000): ReplayVerdict {
    for (const item of this.#expiries.popExpired(nowSeconds)) this.#seen.delete(item.id);
    if (this.#seen.has(id)) return 'replayed';
    if (this.#seen.size >= this.#max) return 'full';
    this.#seen.set(id, expiresAt);
    this.#expiries.push(id, expiresAt);
    return 'accepted';
  }

  /** Forgets every id. */
  clear(): void {
    this.#seen.clear();
    this.#expiries.clear();
  }
}
