import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFHIRId } from '../../src/fhir/index.js';
import { FHIR_ID_PATTERN } from '../../src/fhir/is-fhir-id.js';

test('isFHIRId accepts 1 to 64 ASCII letters, digits, "-" and "."', () => {
  for (const id of ['a', '1', 'example', 'Patient-123.v2', '-', '...', '.a', 'a..b', 'ABCxyz0189', 'x'.repeat(64),
    '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0']) {
    assert.equal(isFHIRId(id), true, id);
  }
});

test('isFHIRId rejects empty, too long, other characters and non-strings', () => {
  for (const id of ['', 'x'.repeat(65), 'a/b', '../etc', 'a b', ' a', 'a\n', 'a_b', 'a%2F', 'a?b', 'a#b', 'é', 'ａ', 'a\u0000',
    'Ω', '😀']) {
    assert.equal(isFHIRId(id), false, JSON.stringify(id));
  }
  for (const value of [undefined, null, 1, ['a'], { toString: () => 'a' }]) assert.equal(isFHIRId(value), false);
});

test('isFHIRId rejects the dot segments "." and "..", which would resolve out of [base]/[type]/ in a URL', () => {
  assert.equal(isFHIRId('.'), false);
  assert.equal(isFHIRId('..'), false);
  assert.equal(new URL('https://h/r4/Patient/..').pathname, '/r4/', 'why: the URL parser removes dot segments');
});

test('FHIR_ID_PATTERN, the text OpenAPI documents publish, decides exactly as isFHIRId', () => {
  const pattern = new RegExp(FHIR_ID_PATTERN);
  for (const id of ['a', 'Patient-123.v2', '...', '.a', 'x'.repeat(64), '.', '..', '', 'x'.repeat(65), 'a/b', 'a b']) {
    assert.equal(pattern.test(id), isFHIRId(id), JSON.stringify(id));
  }
});
