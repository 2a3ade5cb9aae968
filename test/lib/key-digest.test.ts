// The digest API keys are kept as and compared by: SHA-256 of the key's UTF-8 bytes, as 64 hex digits.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { keyDigest } from '../../src/lib/key-digest.js';

test('a key digest is the SHA-256 of its UTF-8 bytes as 64 hex digits, equal for equal keys only', () => {
  assert.equal(keyDigest('abc').toString('latin1'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  for (const key of ['bench-caller-key-0123456789', 'schlüssel-ä', '鍵', '']) {
    assert.deepEqual(keyDigest(key), Buffer.from(createHash('sha256').update(key, 'utf8').digest('hex'), 'latin1'));
    assert.equal(keyDigest(key).length, 64);
  }
  assert.notDeepEqual(keyDigest('schlüssel'), keyDigest('schlussel'));
});
