/**
 * The small shared-state interface that lets several replicas share what one process would keep in a
 * `Map`: the CDS client-JWT `jti` replay cache and the gateway's access-token cache. `MemoryStore` is the
 * in-process default; `redisStore` (`fhirgate/redis`) puts Redis behind the same three calls.
 * @module
 */

/**
 * A key-value store with expiry. Values are strings. Every call is async; a store that cannot answer
 * rejects (callers decide whether to fail closed).
 *
 * @example
 * ```ts
 * const store: KeyValueStore = new MemoryStore();
 * if (await store.setIfAbsent('lock', 'me', 5_000)) console.log('mine for 5 s');
 * ```
 */
export interface KeyValueStore {
  /** The value of `key`, or `undefined` when it is absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` under `key` for `ttlMs` milliseconds (an integer >= 1), replacing any value. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Stores `value` under `key` for `ttlMs` only if the key is absent; true when it was stored. Atomic. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
}

/** Throws a `TypeError` naming `option` unless `value` has the three {@link KeyValueStore} methods. */
export function checkStore(value: unknown, option: string): asserts value is KeyValueStore {
  const s = value as Partial<KeyValueStore> | null;
  if (typeof s !== 'object' || s === null || typeof s.get !== 'function' || typeof s.set !== 'function' || typeof s.setIfAbsent !== 'function') {
    throw new TypeError(`${option} must be a store with get, set and setIfAbsent`);
  }
}

/**
 * A {@link KeyValueStore} in this process's memory (a `Map`), for one replica and for tests. Expired
 * entries are dropped when read and swept when the map grows past twice its size at the last sweep.
 *
 * @example
 * ```ts
 * const store = new MemoryStore();
 * await store.set('k', 'v', 1_000);
 * await store.get('k'); // 'v', for one second
 * ```
 */
export class MemoryStore implements KeyValueStore {
  readonly #entries = new Map<string, { value: string; expiresAt: number }>();
  readonly #now: () => number;
  #sweepAt = 1024;

  /** `now` is the clock in milliseconds (default `Date.now`). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Entries held, expired ones not yet swept included. */
  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    return this.#live(key)?.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#put(key, value, ttlMs);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.#live(key) !== undefined) return false;
    this.#put(key, value, ttlMs);
    return true;
  }

  #live(key: string): { value: string; expiresAt: number } | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.expiresAt > this.#now()) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  #put(key: string, value: string, ttlMs: number): void {
    const now = this.#now();
    this.#entries.set(key, { value, expiresAt: now + ttlMs });
    if (this.#entries.size < this.#sweepAt) return;
    for (const [k, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(k);
    this.#sweepAt = Math.max(1024, this.#entries.size * 2);
  }
}
