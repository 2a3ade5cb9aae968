import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { isJSONObject } from '../../src/lib/json-object.js';

test('isJSONObject is true for objects, whatever their prototype, and false for null, arrays and every other value', () => {
  for (const value of [{}, JSON.parse('{"resourceType":"Patient"}'), Object.create(null), new Date(0), new Map()]) {
    assert.equal(isJSONObject(value), true, inspect(value));
  }
  for (const value of [null, undefined, [], JSON.parse('[{}]'), '{}', 0, true, () => ({}), Symbol('x'), 1n]) {
    assert.equal(isJSONObject(value), false, inspect(value));
  }
});
