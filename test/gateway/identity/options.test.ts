import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsyncFHIRGateway, FHIRGateway, IDENTITY_DEFAULTS } from '../../../src/gateway/index.js';
import { checkIdentityOptions } from '../../../src/gateway/core/identity-options.js';
import { IDENTITY, MRN, SSN } from './fixtures.js';

const build = (identity: unknown) => () => new AsyncFHIRGateway({ identity: identity as never });

test('the identity option is checked once: systems, authorities and ttlSeconds with their defaults', () => {
  const checked = checkIdentityOptions(IDENTITY, 'options.identity');
  assert.deepEqual(checked.systems, [MRN, SSN]);
  assert.deepEqual([...checked.authorities], [[MRN, ['ehr', 'lab', 'research']]]);
  assert.equal(checked.ttlMs, 300_000);
  assert.equal(checkIdentityOptions({ systems: [SSN] }, 'identity').ttlMs, IDENTITY_DEFAULTS.ttlSeconds * 1000);
  assert.equal(checkIdentityOptions({ systems: [SSN] }, 'identity').authorities.size, 0);
  assert.doesNotThrow(build(IDENTITY));
});

test('a typo in the identity option fails with the nearest valid name, never silently widening who is believed', () => {
  assert.throws(build({ systems: [MRN], authorites: { [MRN]: ['ehr'] } }), { name: 'TypeError', message: 'options.identity.authorites is not an option; did you mean `authorities`?' });
  assert.throws(build({ sytems: [MRN] }), { name: 'TypeError', message: 'options.identity.sytems is not an option; did you mean `systems`?' });
  assert.throws(build({ systems: [MRN], ttl: 5 }), { name: 'TypeError', message: /options.identity has an unknown option \(key 2\); the options are systems, authorities, ttlSeconds/ });
});

test('systems must be a non-empty list of absolute URIs or urn:oid: OIDs; authorities only name listed systems', () => {
  assert.throws(build('x'), { name: 'TypeError', message: 'options.identity must be an object' });
  assert.throws(build({ systems: [] }), { message: /options.identity.systems must be a non-empty array/ });
  assert.throws(build({ systems: ['mrn'] }), { message: /options.identity.systems\[0\] must be an absolute URI/ });
  assert.throws(build({ systems: ['http://a.example/x y'] }), { message: /systems\[0\] must be an absolute URI/ });
  assert.throws(build({ systems: ['http://a.example/x|1'] }), { message: /systems\[0\] must be an absolute URI/ });
  assert.throws(build({ systems: ['urn:oid:hospital'] }), { message: /systems\[0\] must be urn:oid: followed by a dotted OID/ });
  assert.throws(build({ systems: [MRN, MRN] }), { message: /lists a system twice/ });
  assert.throws(build({ systems: [MRN], authorities: { [SSN]: ['ehr'] } }), { message: /authorities names a system that is not in options.identity.systems/ });
  assert.throws(build({ systems: [MRN], authorities: { [MRN]: [] } }), { message: /authorities\[".*"\] must be a non-empty array of source names/ });
  assert.throws(build({ systems: [MRN], authorities: [[MRN, ['ehr']]] }), { message: /authorities must be an object/ });
  assert.throws(build({ systems: [MRN], ttlSeconds: -1 }), { name: 'RangeError', message: /options.identity.ttlSeconds must be a finite number of seconds from 0 to 86400/ });
  assert.throws(build({ systems: [MRN], ttlSeconds: '300' }), { name: 'TypeError', message: /ttlSeconds must be a number/ });
});

test('the sync gateway refuses identity instead of ignoring it', () => {
  assert.throws(() => new FHIRGateway({ identity: IDENTITY } as never), { name: 'TypeError', message: /options.identity: FHIRGateway does not resolve patients across sources; use AsyncFHIRGateway/ });
});
