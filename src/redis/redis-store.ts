/**
 * `redisStore`: a {@link KeyValueStore} over a connected client of the `redis` npm package (v4 or v5),
 * so that replicas share the CDS `jti` replay cache and the gateway's access tokens.
 * @module
 */
import type { KeyValueStore } from '../lib/key-value-store.js';

/**
 * The one method fhirgate calls on the user's client: `sendCommand(['SET', ...])`, the same in `redis`
 * v4 and v5 (a `createClient()` client; not a cluster client, whose `sendCommand` differs).
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import type { RedisCommandClient } from 'fhirgate/redis';
 * const client: RedisCommandClient = await createClient({ url: 'redis://127.0.0.1:6379' }).connect();
 * ```
 */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * Options of {@link redisStore}.
 *
 * @example
 * ```ts
 * const options: RedisStoreOptions = { keyPrefix: 'billing-gw:' }; // keys: billing-gw:token:…, billing-gw:jti:…
 * ```
 */
export interface RedisStoreOptions {
  /** Put in front of every key (to share one Redis database between applications). Default `''`. */
  keyPrefix?: string;
}

const ttlOf = (ttlMs: number): string => {
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new RangeError('redisStore: "ttlMs" must be an integer >= 1');
  return String(ttlMs);
};

/**
 * Wraps the user's connected `redis` client as a {@link KeyValueStore}: `GET`, `SET key value PX ttl`
 * and `SET key value PX ttl NX` (atomic in Redis, so two replicas never both win `setIfAbsent`). The
 * client stays the user's: fhirgate never connects, quits or reconnects it. A failing client rejects
 * the call (the replay check then refuses the token; the token cache fetches on its own).
 *
 * @throws TypeError when `client` has no `sendCommand` or `keyPrefix` is not a string.
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { AsyncFHIRGateway } from 'fhirgate';
 * import { CDSHooksService } from 'fhirgate/cds';
 * import { redisStore } from 'fhirgate/redis';
 * const client = await createClient({ url: process.env.REDIS_URL! }).connect();
 * const store = redisStore(client, { keyPrefix: 'my-app:' });
 * const gw = new AsyncFHIRGateway({ tokenStore: store });
 * const cds = new CDSHooksService({ auth: { issuers: [{ issuer: 'ehr', jwksUrls: ['https://ehr.example.org/jwks.json'] }], replayStore: store } });
 * ```
 */
export function redisStore(client: RedisCommandClient, options: RedisStoreOptions = {}): KeyValueStore {
  if (typeof client !== 'object' || client === null || typeof client.sendCommand !== 'function') {
    throw new TypeError('redisStore: "client" must be a connected client of the redis package (with sendCommand)');
  }
  if (typeof options !== 'object' || options === null) throw new TypeError('redisStore: options must be an object');
  const { keyPrefix = '' } = options;
  if (typeof keyPrefix !== 'string') throw new TypeError('redisStore: options.keyPrefix must be a string');
  return Object.freeze({
    async get(key: string): Promise<string | undefined> {
      const value = await client.sendCommand(['GET', keyPrefix + key]);
      if (value === null || value === undefined) return undefined;
      return typeof value === 'string' ? value : String(value);
    },
    async set(key: string, value: string, ttlMs: number): Promise<void> {
      await client.sendCommand(['SET', keyPrefix + key, value, 'PX', ttlOf(ttlMs)]);
    },
    async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
      return (await client.sendCommand(['SET', keyPrefix + key, value, 'PX', ttlOf(ttlMs), 'NX'])) !== null;
    },
  });
}
