/**
 * One source's access token in a {@link KeyValueStore} shared by several replicas, and the short lock
 * that makes one replica fetch while the others wait for its token.
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KeyValueStore } from '../lib/key-value-store.js';

/** A token as the store holds it: the token and when every replica should refresh it (ms since the epoch). */
export interface SharedToken {
  readonly token: string;
  readonly refreshAt: number;
}

/** How long a token without `expires_in` is shared, in ms (each replica still drops it on a 401). */
const UNBOUNDED_TTL_MS = 3_600_000;
/** Waits between two looks at the store while another replica fetches, in ms. */
const POLL_MS = [10, 20, 40, 80, 160, 250] as const;

/**
 * The store slot of one source's token. The key is `fhirgate:token:` and the SHA-256 (base64url) of the
 * token URL, client id, scope and audience: the same for every replica of a source, and never a secret.
 * The value is `{"access_token", "refresh_at"}` only.
 */
export class SharedTokenSlot {
  readonly #store: KeyValueStore;
  readonly #key: string;
  readonly #lockKey: string;
  readonly #owner = randomUUID();

  constructor(store: KeyValueStore, identity: readonly string[]) {
    this.#store = store;
    this.#key = `fhirgate:token:${createHash('sha256').update(JSON.stringify(identity)).digest('base64url')}`;
    this.#lockKey = `${this.#key}:lock`;
  }

  /** The shared token when there is one that is fresh at `nowMs` and is not `rejected`. */
  async read(nowMs: number, rejected: string | undefined): Promise<SharedToken | undefined> {
    const raw = await this.#store.get(this.#key);
    if (raw === undefined) return undefined;
    let value: { access_token?: unknown; refresh_at?: unknown };
    try {
      value = JSON.parse(raw) as typeof value;
    } catch {
      return undefined;
    }
    const { access_token: token, refresh_at: refreshAt } = value;
    if (typeof token !== 'string' || token === rejected) return undefined;
    const at = typeof refreshAt === 'number' ? refreshAt : Infinity;
    return nowMs < at ? { token, refreshAt: at } : undefined;
  }

  /**
   * Waits until this replica may fetch (it took the lock, for `lockMs`) or another replica's token
   * appeared. Gives up waiting at `nowMs() + lockMs` (a replica that died holding the lock): then fetch.
   */
  async claim(nowMs: () => number, lockMs: number, rejected: string | undefined): Promise<SharedToken | 'fetch'> {
    const deadline = nowMs() + lockMs;
    for (let i = 0; ; i++) {
      if (await this.#store.setIfAbsent(this.#lockKey, this.#owner, lockMs)) {
        // Another replica may have stored its token between our read and our lock: then the lock is not needed.
        const shared = await this.read(nowMs(), rejected);
        if (shared === undefined) return 'fetch';
        await this.release();
        return shared;
      }
      if (nowMs() >= deadline) return 'fetch';
      await sleep(POLL_MS[Math.min(i, POLL_MS.length - 1)]);
      const shared = await this.read(nowMs(), rejected);
      if (shared !== undefined) return shared;
    }
  }

  /**
   * Shares `token` until it should be refreshed, and lets the lock go even when sharing failed: a lock
   * command that timed out may still reach the store later, and must not then hold the other replicas
   * back for the whole lock time.
   */
  async write(token: SharedToken, nowMs: number): Promise<void> {
    const ttlMs = Number.isFinite(token.refreshAt) ? Math.max(1, Math.floor(token.refreshAt - nowMs)) : UNBOUNDED_TTL_MS;
    const refreshAt = Number.isFinite(token.refreshAt) ? token.refreshAt : null;
    try {
      await this.#store.set(this.#key, JSON.stringify({ access_token: token.token, refresh_at: refreshAt }), ttlMs);
    } finally {
      await this.release();
    }
  }

  /**
   * Lets the lock go (it is overwritten with a value that expires at once: the store has no delete), so
   * that after a failed fetch the waiting replicas try at once instead of at the lock's end.
   */
  async release(): Promise<void> {
    await this.#store.set(this.#lockKey, 'released', 1);
  }
}
