/**
 * `fhirgate/redis`: shared state for replicas in Redis, over the user's own `redis` client.
 * @module
 */
export { redisStore, type RedisCommandClient, type RedisStoreOptions } from './redis-store.js';
export { MemoryStore, type KeyValueStore } from '../lib/key-value-store.js';
