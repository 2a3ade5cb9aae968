import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkStore, MemoryStore } from '../../src/lib/key-value-store.js';

test('MemoryStore: set, get and setIfAbsent honour the TTL on its clock', async () => {
  let now = 1_000;
  const store = new MemoryStore(() => now);
  assert.equal(await store.get('k'), undefined);
  await store.set('k', 'a', 100);
  assert.equal(await store.get('k'), 'a');
  assert.equal(await store.setIfAbsent('k', 'b', 100), false);
  now += 99;
  assert.equal(await store.get('k'), 'a');
  now += 1;
  assert.equal(await store.get('k'), undefined, 'gone at its expiry');
  assert.equal(await store.setIfAbsent('k', 'c', 100), true);
  assert.equal(await store.get('k'), 'c');
  await store.set('k', 'd', 5);
  assert.equal(await store.get('k'), 'd', 'set replaces');
});

test('MemoryStore: expired entries are swept as it grows, live ones stay', async () => {
  let now = 0;
  const store = new MemoryStore(() => now);
  for (let i = 0; i < 1000; i++) await store.set(`old-${i}`, 'x', 10);
  await store.set('live', 'y', 1_000_000);
  now = 100;
  for (let i = 0; i < 100; i++) await store.set(`new-${i}`, 'z', 10);
  assert.ok(store.size < 200, `swept down to ${store.size}`);
  assert.equal(await store.get('live'), 'y');
  assert.equal(await store.get('old-1'), undefined);
  assert.equal(await store.get('new-99'), 'z');
});

test('checkStore names the option when the store lacks a method', () => {
  assert.throws(() => checkStore({ get() {}, set() {} }, 'tokenStore'), { name: 'TypeError', message: /^tokenStore must be a store with get, set and setIfAbsent$/ });
  assert.throws(() => checkStore(null, 'x'), { name: 'TypeError' });
  assert.doesNotThrow(() => checkStore(new MemoryStore(), 'x'));
});
