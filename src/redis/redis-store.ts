/**
 * `redisStore`: a {@link KeyValueStore} over a connected client of the `redis` npm package (v4 or v5),
 * so that replicas share the CDS `jti` replay cache and the gateway's access tokens.
 * @module
 */
import { FhirgateError } from '../errors.js';
import type { KeyValueStore } from '../lib/key-value-store.js';
import { keysOf, numberOption, onlyKnownKeys } from '../lib/options.js';

/**
 * The methods fhirgate calls on the user's client: `sendCommand(['SET', ...])`, the same in `redis`
 * v4 and v5 (a `createClient()` client; not a cluster client, whose `sendCommand` differs), and
 * `listenerCount('error')`, read once to refuse a client that an outage would crash.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import type { RedisCommandClient } from 'fhirgate/redis';
 * const client: RedisCommandClient = await createClient({ url: 'redis://127.0.0.1:6379' }).on('error', console.error).connect();
 * ```
 */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
  listenerCount?(event: string): number;
}

/**
 * Options of {@link redisStore}.
 *
 * @example
 * ```ts
 * const options: RedisStoreOptions = { keyPrefix: 'billing-gw:', commandTimeoutMs: 250 }; // keys: billing-gw:token:…, billing-gw:jti:…
 * ```
 */
export interface RedisStoreOptions {
  /** Put in front of every key (to share one Redis database between applications). Default `''`. */
  keyPrefix?: string;
  /**
   * Time one command may take, in milliseconds, before the call rejects with `ERR_STORE_UNAVAILABLE`
   * (the command itself may still run later). Bounds what a hung or unreachable Redis costs a request:
   * a token refresh then fetches on its own, a CDS call is refused with 503. Default 500.
   */
  commandTimeoutMs?: number;
}

/** The keys of {@link RedisStoreOptions}; any other is refused with the nearest of these. */
export const REDIS_OPTION_KEYS = keysOf<RedisStoreOptions>({ keyPrefix: true, commandTimeoutMs: true });

const OWNER = 'redisStore';

const ttlOf = (ttlMs: number): string => {
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new RangeError('redisStore: "ttlMs" must be an integer >= 1');
  return String(ttlMs);
};

/** The client's own failure, named without the command's arguments (a value may be a token). */
function failed(command: string, cause: unknown): FhirgateError {
  const why = cause instanceof Error ? `${cause.name}: ${cause.message}`.replace(/\s+/g, ' ').slice(0, 200) : 'unknown error';
  return new FhirgateError('ERR_STORE_UNAVAILABLE', `Redis ${command} failed (${why})`, { cause });
}

/**
 * Wraps the user's connected `redis` client as a {@link KeyValueStore}: `GET`, `SET key value PX ttl`
 * and `SET key value PX ttl NX` (atomic in Redis, so two replicas never both win `setIfAbsent`). The
 * client stays the user's: fhirgate never connects, quits or reconnects it. A call that fails or takes
 * longer than `commandTimeoutMs` rejects with `ERR_STORE_UNAVAILABLE` (the replay check then refuses
 * the call with 503; the token cache fetches on its own).
 *
 * @throws TypeError when `client` has no `sendCommand`, has no `'error'` listener (node-redis would end
 * the process when Redis goes away), or `keyPrefix` is not a string; RangeError for a bad `commandTimeoutMs`.
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { AsyncFHIRGateway } from 'fhirgate';
 * import { CDSHooksService } from 'fhirgate/cds';
 * import { redisStore } from 'fhirgate/redis';
 * const client = createClient({ url: process.env.REDIS_URL!, disableOfflineQueue: true });
 * client.on('error', (err) => console.error('redis:', err.message));
 * const store = redisStore(await client.connect(), { keyPrefix: 'my-app:' });
 * const gw = new AsyncFHIRGateway({ tokenStore: store });
 * const cds = new CDSHooksService({ auth: { issuers: [{ issuer: 'ehr', jwksUrls: ['https://ehr.example.org/jwks.json'] }], replayStore: store } });
 * ```
 */
export function redisStore(client: RedisCommandClient, options: RedisStoreOptions = {}): KeyValueStore {
  if (typeof client !== 'object' || client === null || typeof client.sendCommand !== 'function') {
    throw new TypeError('redisStore: "client" must be a connected client of the redis package (with sendCommand)');
  }
  if (typeof client.listenerCount === 'function' && client.listenerCount('error') === 0) {
    throw new TypeError("redisStore: the client has no 'error' listener, so node-redis would end the process when Redis goes away: add client.on('error', log) first");
  }
  if (typeof options !== 'object' || options === null) throw new TypeError('redisStore: options must be an object');
  onlyKnownKeys(options, REDIS_OPTION_KEYS, 'redisStore: options');
  const { keyPrefix = '' } = options;
  if (typeof keyPrefix !== 'string') throw new TypeError('redisStore: options.keyPrefix must be a string');
  const timeoutMs = numberOption(options.commandTimeoutMs, `${OWNER}: options.commandTimeoutMs`, 500, { integer: true, min: 1, unit: 'milliseconds' });

  const send = (args: string[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const command = args[0]!;
      const timer = setTimeout(() => reject(new FhirgateError('ERR_STORE_UNAVAILABLE', `Redis did not answer ${command} within ${timeoutMs} ms`)), timeoutMs);
      let sent: Promise<unknown>;
      try {
        sent = client.sendCommand(args);
      } catch (error) {
        sent = Promise.reject(error);
      }
      sent.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(failed(command, error));
        },
      );
    });

  return Object.freeze({
    async get(key: string): Promise<string | undefined> {
      const value = await send(['GET', keyPrefix + key]);
      if (value === null || value === undefined) return undefined;
      return typeof value === 'string' ? value : String(value);
    },
    async set(key: string, value: string, ttlMs: number): Promise<void> {
      await send(['SET', keyPrefix + key, value, 'PX', ttlOf(ttlMs)]);
    },
    async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
      return (await send(['SET', keyPrefix + key, value, 'PX', ttlOf(ttlMs), 'NX'])) !== null;
    },
  });
}
