import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { MemoryStore, type KeyValueStore } from '../../src/lib/key-value-store.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

test('a lock command that timed out but still reached the store does not hold the other replicas back', async (t) => {
  const sandbox = await testSandbox(t, { seed: [{ resourceType: 'Patient', id: 'p1' }] });
  const shared = new MemoryStore();
  // Replica A's store answers late, as a hung Redis does: the lock is taken though the call failed,
  // and the token write fails without being stored.
  const late: KeyValueStore = {
    get: (key) => shared.get(key),
    setIfAbsent: async (key, value, ttlMs) => {
      await shared.setIfAbsent(key, value, ttlMs);
      throw new Error('Redis did not answer SET within 500 ms');
    },
    set: async (key, value, ttlMs) => {
      if (!key.endsWith(':lock')) throw new Error('Redis did not answer SET within 500 ms');
      await shared.set(key, value, ttlMs);
    },
  };
  const [a, b] = [late, shared].map((tokenStore) => new AsyncFHIRGateway({ tokenStore, events: false }));
  for (const gw of [a!, b!]) {
    t.after(() => gw.close());
    gw.addSource('ehr', sandbox.connectionString());
  }
  assert.equal((await a!.read('Patient', 'p1')).id, 'p1');
  // B finds no token and must not wait out A's lock (the 30 s token time-out): 15 s tells the two apart
  // on a loaded machine; the unref'd timer keeps no process alive after the read answered.
  const read = b!.read('Patient', 'p1').then((p) => p.id);
  assert.equal(await Promise.race([read, sleep(15_000, 'still waiting for the lock after 15 s', { ref: false })]), 'p1');
  assert.equal(sandbox.stats.tokenRequests, 2);
});
