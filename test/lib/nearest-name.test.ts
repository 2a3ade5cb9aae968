import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestName } from '../../src/lib/nearest-name.js';

const PARAMS = ['client_id', 'client_secret', 'scope', 'token_url', 'key_id'];

test('an obvious typo (case, - for _, one or two edits, a swap) names the known name', () => {
  assert.equal(nearestName('client_secert', PARAMS), 'client_secret');
  assert.equal(nearestName('Client-Secret', PARAMS), 'client_secret');
  assert.equal(nearestName('scopes', PARAMS), 'scope');
  assert.equal(nearestName('tokenurl', PARAMS), 'token_url');
  assert.equal(nearestName('client_idd', PARAMS), 'client_id');
});

test('anything further, and any text against names under 3 characters, matches nothing', () => {
  assert.equal(nearestName('TopSecretTail123', PARAMS), undefined);
  assert.equal(nearestName('scxxe', PARAMS), undefined, 'two edits are too many for a 5-letter name');
  assert.equal(nearestName('x', ['a', 'b']), undefined);
  assert.equal(nearestName('', PARAMS), undefined);
});
