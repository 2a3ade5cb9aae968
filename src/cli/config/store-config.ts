/**
 * The `store` setting of `fhirgate.json`: the shared store through which replicas share the facade's
 * rate limits and the gateway's access tokens. Redis only (`{"redis": "redis://…"}`), through the user's
 * own installed `redis` package. Messages name the setting, never its value (a URL may hold a password).
 * @module
 */
import { configError, object, onlyKeys, optionalMilliseconds, optionalString } from './checks.js';

/** The `store` section after checks. */
export interface StoreConfig {
  /** A `redis://` or `rediss://` URL (credentials, database and TLS as node-redis reads them). */
  readonly redis: string;
  /** Put in front of every key (several applications in one Redis database). Default none. */
  readonly keyPrefix: string | undefined;
  /** Milliseconds one Redis command may take before the call fails (`redisStore`'s default: 500). */
  readonly commandTimeoutMs: number | undefined;
}

const KEYS = ['redis', 'keyPrefix', 'commandTimeoutMs'];

/** Checks the `store` section (absent: no shared store, each process counts and caches alone). */
export function checkStoreConfig(value: unknown, path: string): StoreConfig | undefined {
  if (value === undefined) return undefined;
  const record = object(value, path);
  onlyKeys(record, KEYS, path);
  const redis = optionalString(record.redis, `${path}.redis`);
  if (redis === undefined) throw configError(`${path}.redis`, 'is required: the URL of the Redis server (redis://host:6379 or rediss://…)');
  if (!URL.canParse(redis) || !['redis:', 'rediss:'].includes(new URL(redis).protocol)) throw configError(`${path}.redis`, 'must be a redis:// or rediss:// URL');
  const keyPrefix = record.keyPrefix;
  if (keyPrefix !== undefined && typeof keyPrefix !== 'string') throw configError(`${path}.keyPrefix`, 'must be a string');
  return Object.freeze({ redis, keyPrefix, commandTimeoutMs: optionalMilliseconds(record.commandTimeoutMs, `${path}.commandTimeoutMs`, 1) });
}
