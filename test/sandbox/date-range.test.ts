import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateRange, matchesDate } from '../../src/sandbox/date-range.js';

test('a partial date covers its whole year, month or day; a dateTime its minute, second or millisecond', () => {
  assert.deepEqual(dateRange('1974'), { start: Date.UTC(1974, 0, 1), end: Date.UTC(1975, 0, 1) });
  assert.deepEqual(dateRange('1974-12'), { start: Date.UTC(1974, 11, 1), end: Date.UTC(1975, 0, 1) });
  assert.deepEqual(dateRange('2024-02-29'), { start: Date.UTC(2024, 1, 29), end: Date.UTC(2024, 2, 1) });
  assert.deepEqual(dateRange('2020-01-01T10:00Z'), { start: Date.UTC(2020, 0, 1, 10), end: Date.UTC(2020, 0, 1, 10, 1) });
  assert.deepEqual(dateRange('2020-01-01T10:00:05Z'), { start: Date.UTC(2020, 0, 1, 10, 0, 5), end: Date.UTC(2020, 0, 1, 10, 0, 6) });
  assert.deepEqual(dateRange('2020-01-01T10:00:05.250Z'), { start: Date.UTC(2020, 0, 1, 10, 0, 5, 250), end: Date.UTC(2020, 0, 1, 10, 0, 5, 251) });
});

test('time zone offsets move the instant; a time without a zone is UTC', () => {
  assert.equal(dateRange('2020-01-01T10:00:00+02:00')?.start, Date.UTC(2020, 0, 1, 8));
  assert.equal(dateRange('2020-01-01T10:00:00-05:30')?.start, Date.UTC(2020, 0, 1, 15, 30));
  assert.equal(dateRange('2020-01-01T10:00:00')?.start, Date.UTC(2020, 0, 1, 10));
});

test('impossible or malformed dates are not dates', () => {
  for (const text of ['2023-02-29', '1974-13', '1974-00', '1974-01-32', '2020-01-01T24:00Z', '2020-01-01T10:60Z', '74', '2020-1-1', '2020-01-01T10Z', '']) {
    assert.equal(dateRange(text), undefined, text);
  }
});

test('prefixes compare ranges as FHIR search.html says', () => {
  const year = dateRange('2020')!;
  const inside = dateRange('2020-06-15')!;
  const before = dateRange('2019-12-31')!;
  const after = dateRange('2021-01-01')!;
  const straddle = { start: Date.UTC(2019, 11, 31), end: Date.UTC(2020, 0, 2) };
  assert.deepEqual(['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb', 'ap'].map((p) => matchesDate(p as never, year, inside)),
    [true, false, false, false, true, true, false, false, true]);
  assert.deepEqual(['eq', 'gt', 'lt', 'sa', 'eb', 'ap'].map((p) => matchesDate(p as never, year, before)), [false, false, true, false, true, false]);
  assert.deepEqual(['eq', 'gt', 'lt', 'sa', 'eb', 'ap'].map((p) => matchesDate(p as never, year, after)), [false, true, false, true, false, false]);
  assert.deepEqual(['eq', 'ne', 'lt', 'ge', 'le', 'ap'].map((p) => matchesDate(p as never, year, straddle)), [false, true, true, false, true, true]);
});
