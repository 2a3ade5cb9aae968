/**
 * A cache of JWK Sets fetched from allowlisted URLs: one fetch at a time per URL, entries trusted for a
 * while, and a refetch on an unknown `kid` at most once per cool-down (so that forged `kid`s cannot make
 * the service hammer the issuer).
 * @module
 */
import type { ProxyAgents } from './proxy-agents.js';
import type { JsonWebKey } from 'node:crypto';
import { FhirgateError, isFhirgateError } from '../errors.js';
import { isJSONObject } from '../lib/json-object.js';
import { request } from './request.js';

/** Options of a {@link JWKSCache}, in milliseconds. */
export interface JWKSCacheOptions {
  /** How long a fetched set is trusted. */
  ttlMs: number;
  /** Minimum time between two fetches of one URL. */
  cooldownMs: number;
  /** Time-out of one fetch. */
  timeoutMs: number;
  /** The outbound proxy's agents, when the component has a proxy. */
  proxy?: ProxyAgents;
}

/** A JWKS document is small; anything larger is refused. */
const MAX_JWKS_BYTES = 256 * 1024;

interface Entry {
  keys: JsonWebKey[];
  fetchedAt: number;
}

function pick(keys: readonly JsonWebKey[] | undefined, kid: string): JsonWebKey | undefined {
  return keys?.find((k) => k.kid === kid && (k.use === undefined || k.use === 'sig'));
}

async function download(url: string, timeoutMs: number, proxy: ProxyAgents | undefined): Promise<JsonWebKey[]> {
  let response;
  try {
    const agent = proxy?.agentFor(new URL(url));
    response = await request(url, { method: 'GET', headers: { accept: 'application/json' }, timeoutMs, maxResponseBytes: MAX_JWKS_BYTES, agent });
  } catch (err) {
    throw new FhirgateError('ERR_JWT', `JWKS fetch failed (${isFhirgateError(err) ? err.code : 'error'})`, { cause: err });
  }
  if (response.status !== 200) throw new FhirgateError('ERR_JWT', `JWKS fetch answered ${response.status}`);
  let doc: unknown;
  try {
    doc = JSON.parse(response.body.toString('utf8'));
  } catch (err) {
    throw new FhirgateError('ERR_JWT', 'JWKS is not JSON', { cause: err });
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new FhirgateError('ERR_JWT', 'JWKS has no keys array');
  return keys.filter((k): k is JsonWebKey => isJSONObject(k));
}

/** Finds signing keys by `kid` in remote JWK Sets. */
export class JWKSCache {
  readonly #options: JWKSCacheOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #lastFetch = new Map<string, number>();
  readonly #inflight = new Map<string, Promise<JsonWebKey[]>>();

  constructor(options: JWKSCacheOptions) {
    this.#options = { ...options };
  }

  /** The key with `kid` at `url`, fetching the set when it is unknown or stale; `undefined` when absent. */
  async find(url: string, kid: string): Promise<JsonWebKey | undefined> {
    const now = Date.now();
    const entry = this.#entries.get(url);
    const fresh = entry !== undefined && now - entry.fetchedAt < this.#options.ttlMs;
    const cached = pick(entry?.keys, kid);
    if (fresh && cached !== undefined) return cached;
    const last = this.#lastFetch.get(url);
    if (last !== undefined && now - last < this.#options.cooldownMs && !this.#inflight.has(url)) return cached;
    return pick(await this.#fetch(url), kid);
  }

  /** Forgets every fetched set. */
  clear(): void {
    this.#entries.clear();
    this.#lastFetch.clear();
  }

  #fetch(url: string): Promise<JsonWebKey[]> {
    let pending = this.#inflight.get(url);
    if (pending === undefined) {
      this.#lastFetch.set(url, Date.now());
      pending = download(url, this.#options.timeoutMs, this.#options.proxy)
        .then((keys) => {
          this.#entries.set(url, { keys, fetchedAt: Date.now() });
          return keys;
        })
        .finally(() => this.#inflight.delete(url));
      this.#inflight.set(url, pending);
    }
    return pending;
  }
}
