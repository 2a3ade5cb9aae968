import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findBinary, systemBinary } from './system-binary.js';

test('a binary on the path is found by its absolute path', () => {
  const node = findBinary('node');
  assert.ok(node !== undefined && node.startsWith('/') && node.endsWith('/node'));
  assert.equal(systemBinary({ skip: () => assert.fail('not skipped') }, 'node', 'nodejs', {}), node);
});

test('a missing binary skips with one line naming the package outside CI, and fails with CI=true', () => {
  const skipped: (string | undefined)[] = [];
  assert.equal(systemBinary({ skip: (m) => void skipped.push(m) }, 'fhirgate-no-such-binary', 'fhirgate-pkg', {}), undefined);
  assert.deepEqual(skipped, ['fhirgate-no-such-binary is not installed: apt-get install -y fhirgate-pkg']);
  assert.throws(
    () => systemBinary({ skip: () => assert.fail('must not skip in CI') }, 'fhirgate-no-such-binary', 'fhirgate-pkg', { CI: 'true' }),
    { message: 'fhirgate-no-such-binary is not installed: apt-get install -y fhirgate-pkg (CI=true: a missing binary fails the test)' },
  );
});
