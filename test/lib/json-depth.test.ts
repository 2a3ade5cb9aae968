import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nestsDeeperThan } from '../../src/lib/json-depth.js';

test('nestsDeeperThan counts arrays and objects, not brackets inside strings or after escaped quotes', () => {
  assert.equal(nestsDeeperThan('{"a":[[1]]}', 2), true);
  assert.equal(nestsDeeperThan('{"a":[[1]]}', 3), false);
  assert.equal(nestsDeeperThan('{"a":"[[[[[[","b":"\\"[[[[","c":"\\\\"}', 1), false);
  assert.equal(nestsDeeperThan('{"a":"\\\\",  "b":[[1]]}', 2), true);
  assert.equal(nestsDeeperThan(`${'['.repeat(600)}${']'.repeat(600)}`, 512), true);
  assert.equal(nestsDeeperThan(`${'['.repeat(512)}${']'.repeat(512)}`, 512), false);
  assert.equal(nestsDeeperThan('[[[', 5), false, 'a text no longer than the limit is not read');
});

test('nestsDeeperThan agrees with the depth of what JSON.parse builds', () => {
  const depth = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
  let seed = 7;
  const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const build = (level: number): unknown => {
    const k = next(level > 6 ? 2 : 5);
    if (k === 0) return `s"[{\\${next(100)}`;
    if (k === 1) return next(1000);
    if (k === 2) return Array.from({ length: next(3) }, () => build(level + 1));
    return Object.fromEntries(Array.from({ length: next(3) }, (_, i) => [`k${i}[`, build(level + 1)]));
  };
  for (let i = 0; i < 500; i++) {
    const value = build(0);
    const text = JSON.stringify(value);
    const d = depth(value);
    for (const max of [0, 1, 2, 4, 8, 16]) assert.equal(nestsDeeperThan(text, max), text.length > max && d > max, `${text} at ${max}`);
  }
});
