/**
 * The `jti` replay check over a shared {@link KeyValueStore}, so that a CDS client JWT accepted by one
 * replica is refused by every other.
 * @module
 */
import { createHash } from 'node:crypto';
import type { KeyValueStore } from '../lib/key-value-store.js';
import type { ReplayVerdict } from './replay-cache.js';

/**
 * Remembers accepted token ids in `store` until they expire. The key is `fhirgate:jti:` and the
 * SHA-256 (base64url) of `<issuer> <jti>`: bounded in length, and nothing of the token but that hash.
 */
export class StoreReplayCheck {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  /**
   * Records `id` until `expiresAt` (seconds since the epoch) unless another call, here or in another
   * replica, recorded it first. Rejects when the store does (callers fail closed).
   */
  async remember(id: string, expiresAt: number, nowMs = Date.now()): Promise<ReplayVerdict> {
    const ttlMs = Math.max(1, Math.ceil(expiresAt * 1000 - nowMs));
    const key = `fhirgate:jti:${createHash('sha256').update(id).digest('base64url')}`;
    return (await this.#store.setIfAbsent(key, '1', ttlMs)) ? 'accepted' : 'replayed';
  }
}
