/**
 * The cache of resolutions: this process's memory first, then the gateway's shared store (the token
 * store, e.g. Redis) so that replicas agree. An entry carries its own expiry, so a replica that copies
 * it from the store keeps it no longer than the replica that wrote it. A store that fails is passed by:
 * the resolution is then made afresh (never less safe than a cached one).
 * @module
 */
import { MemoryStore, type KeyValueStore } from '../../lib/key-value-store.js';
import type { SourceOutcome } from './types.js';

/** What is cached of a resolution. */
export interface CrosswalkEntry {
  readonly identifiers: readonly string[];
  readonly outcomes: readonly SourceOutcome[];
}

const STATUSES = new Set(['found', 'absent', 'ambiguous', 'failed']);

/** Resolutions by key, in memory and in the shared store. */
export class CrosswalkCache {
  readonly #local: MemoryStore;
  readonly #shared: KeyValueStore | undefined;
  readonly #now: () => number;

  constructor(shared: KeyValueStore | undefined, now: () => number = Date.now) {
    this.#local = new MemoryStore(now);
    this.#shared = shared;
    this.#now = now;
  }

  /** The live entry under `key`, from memory or else from the shared store. */
  async get(key: string): Promise<CrosswalkEntry | undefined> {
    const local = read(await this.#local.get(key), this.#now());
    if (local !== undefined || this.#shared === undefined) return local;
    const raw = await this.#shared.get(key).catch(() => undefined);
    const shared = read(raw, this.#now());
    if (shared !== undefined && raw !== undefined) await this.#local.set(key, raw, Math.max(1, shared.expiresAt - this.#now()));
    return shared;
  }

  /** Keeps `entry` for `ttlMs` milliseconds (nothing when `ttlMs` is 0). */
  async put(key: string, entry: CrosswalkEntry, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    const raw = JSON.stringify({ expiresAt: this.#now() + ttlMs, identifiers: entry.identifiers, outcomes: entry.outcomes });
    await this.#local.set(key, raw, ttlMs);
    await this.#shared?.set(key, raw, ttlMs).catch(() => undefined);
  }
}

/** A stored entry if it is well formed and not expired. */
function read(raw: string | undefined, now: number): (CrosswalkEntry & { expiresAt: number }) | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const v = value as Partial<CrosswalkEntry & { expiresAt: number }> | null;
  if (typeof v !== 'object' || v === null || typeof v.expiresAt !== 'number' || v.expiresAt <= now) return undefined;
  if (!Array.isArray(v.identifiers) || !Array.isArray(v.outcomes)) return undefined;
  if (!v.outcomes.every((o) => typeof o === 'object' && o !== null && typeof o.source === 'string' && STATUSES.has(o.status))) return undefined;
  return v as CrosswalkEntry & { expiresAt: number };
}
