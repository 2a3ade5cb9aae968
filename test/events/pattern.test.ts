import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePattern } from '../../src/events/pattern.js';

test('an exact pattern matches only that name, case-sensitively', () => {
  const m = compilePattern('fhir.patient.read');
  assert.equal(m('fhir.patient.read'), true);
  for (const name of ['fhir.patient.reads', 'fhir.patient', 'FHIR.patient.read', 'xfhir.patient.read', '']) assert.equal(m(name), false, name);
});

test('a trailing * matches every name starting with the text before it', () => {
  const m = compilePattern('cdshooks.*');
  for (const name of ['cdshooks.patient-view', 'cdshooks.feedback', 'cdshooks.']) assert.equal(m(name), true, name);
  for (const name of ['cdshooks', 'cdshooksx', 'notereader.processdocument', 'x.cdshooks.a']) assert.equal(m(name), false, name);
  const prefix = compilePattern('fhir.pat*');
  assert.equal(prefix('fhir.patient.read'), true);
  assert.equal(prefix('fhir.observation.read'), false);
});

test('* alone matches every name', () => {
  const m = compilePattern('*');
  for (const name of ['a', 'fhir.patient.read', 'cdshooks']) assert.equal(m(name), true, name);
});

test('invalid patterns throw a TypeError naming the pattern', () => {
  for (const bad of ['', 'a*b', '**', '*.read', 'fhir.*.read', 'a b', ' fhir.*', 'fhir.patient.read\n', 'a**']) {
    assert.throws(() => compilePattern(bad), { name: 'TypeError', message: /"pattern"/ }, JSON.stringify(bad));
  }
  for (const bad of [undefined, null, 1, /a/, ['a']]) assert.throws(() => compilePattern(bad), { name: 'TypeError', message: /"pattern"/ });
});
