/**
 * Remembers the `jti` of accepted client tokens until they expire, so that a captured token cannot be
 * played again. Bounded: when full, expired entries go first, then the oldest.
 * @module
 */

/**
 * A bounded set of token ids with expiry times.
 *
 * @example
 * ```ts
 * const seen = new ReplayCache(10_000);
 * if (!seen.remember(`${iss} ${jti}`, exp)) throw new Error('replayed');
 * ```
 */
export class ReplayCache {
  readonly #max: number;
  /** id → expiry, in seconds since the epoch; insertion order is age order. */
  readonly #seen = new Map<string, number>();

  constructor(maxEntries: number) {
    this.#max = maxEntries;
  }

  /** How many ids are remembered. */
  get size(): number {
    return this.#seen.size;
  }

  /**
   * Records `id` until `expiresAt` (seconds). False when it is already remembered and not yet expired
   * (a replay).
   */
  remember(id: string, expiresAt: number, nowSeconds = Date.now() / 1000): boolean {
    const known = this.#seen.get(id);
    if (known !== undefined && known >= nowSeconds) return false;
    this.#seen.delete(id);
    if (this.#seen.size >= this.#max) this.#prune(nowSeconds);
    this.#seen.set(id, expiresAt);
    return true;
  }

  /** Forgets every id. */
  clear(): void {
    this.#seen.clear();
  }

  #prune(nowSeconds: number): void {
    for (const [id, expiresAt] of this.#seen) if (expiresAt < nowSeconds) this.#seen.delete(id);
    for (const id of this.#seen.keys()) {
      if (this.#seen.size < this.#max) break;
      this.#seen.delete(id);
    }
  }
}
