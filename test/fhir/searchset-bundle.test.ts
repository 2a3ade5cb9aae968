import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operationOutcome, searchsetBundle, type Patient } from '../../src/fhir/index.js';

const alice: Patient = { resourceType: 'Patient', id: 'alice', name: [{ family: 'Doe' }] };
const bob: Patient = { resourceType: 'Patient', id: 'bob' };

test('searchsetBundle puts the resources in order as match entries and counts them as total', () => {
  const bundle = searchsetBundle([alice, bob]);
  assert.deepEqual(bundle, {
    resourceType: 'Bundle',
    type: 'searchset',
    total: 2,
    entry: [
      { resource: alice, search: { mode: 'match' } },
      { resource: bob, search: { mode: 'match' } },
    ],
  });
  assert.equal(bundle.entry?.[0]?.resource, alice, 'resources are not copied');
});

test('searchsetBundle marks OperationOutcomes as outcome entries and leaves them out of the default total', () => {
  const warning = operationOutcome('warning', 'informational', 'results limited');
  const bundle = searchsetBundle([alice, warning]);
  assert.equal(bundle.total, 1);
  assert.deepEqual(bundle.entry?.map((e) => e.search?.mode), ['match', 'outcome']);
});

test('searchsetBundle takes total, links and a base URL for fullUrl', () => {
  const links = [{ relation: 'self', url: 'http://h/fhir/Patient?_count=1' }, { relation: 'next', url: 'http://h/fhir/Patient?_count=1&page=2' }];
  const bundle = searchsetBundle([alice, { resourceType: 'Patient' } as Patient], { total: 7, links, baseUrl: 'http://h/fhir/' });
  assert.equal(bundle.total, 7);
  assert.deepEqual(bundle.link, links);
  assert.notEqual(bundle.link, links, 'links are copied');
  assert.equal(bundle.entry?.[0]?.fullUrl, 'http://h/fhir/Patient/alice');
  assert.equal(bundle.entry?.[1]?.fullUrl, undefined, 'no fullUrl without an id');
});

test('searchsetBundle of nothing has total 0 and no empty arrays', () => {
  assert.deepEqual(searchsetBundle([], { links: [] }), { resourceType: 'Bundle', type: 'searchset', total: 0 });
});

test('searchsetBundle rejects bad arguments, naming them', () => {
  assert.throws(() => searchsetBundle('x' as never), { name: 'TypeError', message: /"resources"/ });
  assert.throws(() => searchsetBundle([alice, null as never]), { name: 'TypeError', message: /"resources\[1\]"/ });
  assert.throws(() => searchsetBundle([{ id: 'x' } as never]), { name: 'TypeError', message: /"resources\[0\]"/ });
  assert.throws(() => searchsetBundle([], null as never), { name: 'TypeError', message: /options/ });
  for (const total of [-1, 1.5, Number.NaN, '3']) {
    assert.throws(() => searchsetBundle([], { total: total as never }), { name: 'RangeError', message: /options\.total/ });
  }
  assert.throws(() => searchsetBundle([], { links: {} as never }), { name: 'TypeError', message: /options\.links/ });
  assert.throws(() => searchsetBundle([], { links: [{ relation: 'self' }] as never }), { name: 'TypeError', message: /options\.links\[0\]/ });
  assert.throws(() => searchsetBundle([], { links: [null] as never }), { name: 'TypeError', message: /options\.links\[0\]/ });
  assert.throws(() => searchsetBundle([], { baseUrl: 1 as never }), { name: 'TypeError', message: /options\.baseUrl/ });
});
