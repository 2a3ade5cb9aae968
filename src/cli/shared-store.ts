/**
 * The shared store a config's `store` names: a node-redis client made the way docs/events.md recommends
 * for surviving an outage (an `'error'` listener, no offline queue, a ping, reconnects for ever, each
 * command bounded by `redisStore`'s time-out), wrapped by `redisStore`. `redis` is not a dependency of
 * fhirgate: the user's own installed package is loaded when the setting is used. Nothing printed ever
 * holds the URL or its password.
 * @module
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FhirgateError } from '../errors.js';
import type { KeyValueStore } from '../lib/key-value-store.js';
import { SecretRedactor } from '../lib/redact-secrets.js';
import type { Logger } from '../mount/index.js';
import { redisStore } from '../redis/index.js';
import type { RedisCommandClient } from '../redis/index.js';
import { configError } from './config/checks.js';
import type { StoreConfig } from './config/store-config.js';

/** What the CLI needs of a node-redis client (v4 or v5). */
interface RedisClient extends RedisCommandClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
  readonly isOpen: boolean;
  readonly isReady: boolean;
}

/** The part of the `redis` package the CLI calls. */
export interface RedisModule {
  createClient(options: Record<string, unknown>): RedisClient;
}

/** An open shared store, and how to let it go. */
export interface SharedStore {
  readonly store: KeyValueStore;
  close(): Promise<void>;
}

/** How long start-up waits for Redis to take the first connection before it gives up, in ms. */
const CONNECT_WAIT_MS = 5_000;

/**
 * Connects to the configured Redis and wraps it as a store. `ERR_CONFIG` when the `redis` package is
 * not installed (naming what to install); `ERR_STORE_UNAVAILABLE` when Redis does not take a connection
 * within 5 s. `load` is the `redis` package (tests give their own).
 */
export async function openSharedStore(config: StoreConfig, logger: Logger, load: () => Promise<RedisModule> = loadRedis): Promise<SharedStore> {
  const redis = await load();
  const hide = secretsOf(config.redis);
  const client = redis.createClient({
    url: config.redis,
    disableOfflineQueue: true,
    pingInterval: 10_000,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000) },
  });
  let last: string | undefined;
  client.on('error', (error: Error) => {
    const message = hide.text(`${error?.name ?? 'Error'}: ${error?.message ?? ''}`, 300);
    if (message !== last) logger.warn('redis store unavailable', { error: message });
    last = message;
  });
  client.on('ready', () => {
    if (last !== undefined) logger.info('redis store available again', {});
    last = undefined;
  });
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CONNECT_WAIT_MS)));
  const connecting = client.connect().then(
    () => client.isReady,
    (error: unknown) => {
      last = hide.text(String((error as Error)?.message ?? error), 300);
      return false;
    },
  );
  const connected = await Promise.race([connecting, waited]);
  clearTimeout(timer);
  if (!connected) {
    if (client.isOpen) client.destroy();
    throw new FhirgateError('ERR_STORE_UNAVAILABLE', `store.redis: Redis did not take a connection within ${CONNECT_WAIT_MS / 1000} s${last === undefined ? '' : ` (${last})`}`);
  }
  const store = redisStore(client, { ...(config.keyPrefix === undefined ? {} : { keyPrefix: config.keyPrefix }), ...(config.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: config.commandTimeoutMs }) });
  return {
    store,
    close: async () => {
      if (client.isOpen) client.destroy();
    },
  };
}

/**
 * The user's `redis` package: where fhirgate is installed (a project's node_modules), else in the working
 * directory (fhirgate installed globally or run by npx).
 */
async function loadRedis(): Promise<RedisModule> {
  const usable = (m: unknown): RedisModule | undefined => {
    const mod = m as Partial<RedisModule> & { default?: Partial<RedisModule> };
    const createClient = mod.createClient ?? mod.default?.createClient;
    return typeof createClient === 'function' ? { createClient } : undefined;
  };
  for (const from of [() => import('redis'), () => import(pathToFileURL(createRequire(join(process.cwd(), 'package.json')).resolve('redis')).href)]) {
    try {
      const found = usable(await from());
      if (found !== undefined) return found;
    } catch {
      // Not installed there: try the next place.
    }
  }
  throw configError('store.redis', 'needs the redis package, which fhirgate does not install: run `npm install redis` (v4 or v5) in your project or beside fhirgate');
}

/** Takes the URL and its password (in every form node-redis may print it) out of a message. */
function secretsOf(url: string): SecretRedactor {
  const parsed = new URL(url);
  let decoded = parsed.password;
  try {
    decoded = decodeURIComponent(parsed.password);
  } catch {
    // A malformed escape: the raw form is hidden all the same.
  }
  // A password of one or two characters would take those characters out of every message.
  return new SecretRedactor({ secrets: [url, parsed.password, decoded].filter((s) => s.length >= 3) });
}
