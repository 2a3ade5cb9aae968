// The ids the federated base issues (`<source>.<id>`): read back to the one source that gave them, and
// left as the source gave them (with absolute references) when no FHIR id could name the source.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { federatedResource, resolveFederatedId, sourceQuery } from '../../src/facade/federated-id.js';

const SOURCES = ['ehr', 'a', 'a.b', 'lab_2'];
const view = (source: string) => ({ source, sourceBase: `https://gw.example.org/fhir/${source}`, sources: SOURCES });

test('an id and its relative references are qualified with the source; other references and contained ids stay', () => {
  const shown = federatedResource({
    resourceType: 'Observation', id: '7', meta: { versionId: '2' },
    subject: { reference: 'Patient/123' },
    performer: [{ reference: 'Practitioner/9/_history/1' }, { reference: '#org' }, { reference: 'https://other.example.org/fhir/Patient/5' }, { reference: 'urn:uuid:0b0b' }],
    contained: [{ resourceType: 'Organization', id: 'org' }],
    note: [{ text: 'Patient/123 was seen' }],
  }, view('ehr'));
  assert.equal(shown.id, 'ehr.7');
  assert.deepEqual(shown.meta, { versionId: '2', source: 'https://gw.example.org/fhir/ehr' });
  assert.deepEqual(shown.subject, { reference: 'Patient/ehr.123' });
  assert.deepEqual((shown.performer as unknown[]).map((p: any) => p.reference), ['Practitioner/ehr.9/_history/1', '#org', 'https://other.example.org/fhir/Patient/5', 'urn:uuid:0b0b']);
  assert.deepEqual(shown.contained, [{ resourceType: 'Organization', id: 'org' }]);
  assert.equal((shown.note as any)[0].text, 'Patient/123 was seen', 'free text is not a reference');
  assert.deepEqual(resolveFederatedId('ehr.7', SOURCES), { source: 'ehr', id: '7' });
});

test('the longest source name wins, and an id that would read back as another source\'s is not issued', () => {
  assert.deepEqual(resolveFederatedId('a.b.1', SOURCES), { source: 'a.b', id: '1' });
  assert.deepEqual(resolveFederatedId('a.c', SOURCES), { source: 'a', id: 'c' });
  const ambiguous = federatedResource({ resourceType: 'Patient', id: 'b.1', link: [{ other: { reference: 'Patient/b.2' } }] }, view('a'));
  assert.equal(ambiguous.id, 'b.1', 'a.b.1 would read back as source a.b');
  assert.equal((ambiguous.link as any)[0].other.reference, 'https://gw.example.org/fhir/a/Patient/b.2', 'its references absolute at the source base');
  assert.equal(resolveFederatedId('nowhere.1', SOURCES), undefined);
  assert.equal(resolveFederatedId('ehr.', SOURCES), undefined);
});

test('no FHIR id can name a source with _ or hold a 64-character id and its source: left as the source gave it', () => {
  assert.equal(federatedResource({ resourceType: 'Patient', id: '1' }, view('lab_2')).id, '1');
  const long = 'x'.repeat(64);
  assert.equal(federatedResource({ resourceType: 'Patient', id: long }, view('ehr')).id, long);
  assert.equal(federatedResource({ resourceType: 'Patient', id: 'x'.repeat(60) }, view('ehr')).id, `ehr.${'x'.repeat(60)}`);
});

test('a search naming federated ids goes to each source with its own ids, and not to a source that cannot match', () => {
  const q = new URLSearchParams([['subject', 'Patient/ehr.1,Patient/a.b.2'], ['_id', 'ehr.7'], ['code', 'x\\,y,z'], ['_count', '5']]);
  assert.equal(sourceQuery(q, 'ehr', SOURCES)?.toString(), new URLSearchParams([['subject', 'Patient/1'], ['_id', '7'], ['code', 'x\\,y,z'], ['_count', '5']]).toString());
  assert.equal(sourceQuery(q, 'a.b', SOURCES), undefined, '_id names only an ehr resource: nothing at a.b can match');
  assert.equal(sourceQuery(new URLSearchParams('subject:Patient=a.b.2'), 'a.b', SOURCES)?.toString(), 'subject%3APatient=2', 'a bare id under a type modifier');
  assert.equal(sourceQuery(new URLSearchParams('subject=ehr.1&name=ehr.1'), 'a', SOURCES)?.toString(), 'subject=ehr.1&name=ehr.1', 'a bare value elsewhere is not an id');
  assert.equal(sourceQuery(new URLSearchParams('_id:not=ehr.1'), 'a', SOURCES)?.toString(), '_id%3Anot=ehr.1', 'other modifiers go as they are');
});

test('an upstream element named "__proto__" stays an element of the federated copy, never its prototype', () => {
  const upstream = JSON.parse('{"resourceType":"Observation","id":"7","note":[{"__proto__":{"reference":"Patient/1","polluted":true},"text":"x"}]}') as Record<string, unknown>;
  const shown = federatedResource(upstream, view('ehr'));
  const note = (shown.note as Record<string, unknown>[])[0]!;
  assert.equal(Object.getPrototypeOf(note), Object.prototype);
  assert.equal((note as { polluted?: unknown }).polluted, undefined);
  assert.ok(Object.hasOwn(note, '__proto__'));
  assert.deepEqual(Object.getOwnPropertyDescriptor(note, '__proto__')?.value, { reference: 'Patient/ehr.1', polluted: true });
});
