import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHTTPDate, parseRetryAfter } from '../../src/http/retry-after.js';

const now = Date.parse('2026-11-22T12:00:00Z');

test('Retry-After in delta-seconds is that many seconds', () => {
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter('1', now), 1000);
  assert.equal(parseRetryAfter(' 120 ', now), 120_000);
});

test('Retry-After as an HTTP-date in the future is the time until then, in the past 0', () => {
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 12:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 11:59:00 GMT', now), 0);
  assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now), 0);
});

test('the obsolete RFC 850 and asctime forms are read too (RFC 9110 §5.6.7)', () => {
  assert.equal(parseHTTPDate('Sunday, 06-Nov-94 08:49:37 GMT', now), Date.parse('1994-11-06T08:49:37Z'));
  assert.equal(parseHTTPDate('Sun Nov  6 08:49:37 1994', now), Date.parse('1994-11-06T08:49:37Z'));
  assert.equal(parseHTTPDate('Sun, 06 Nov 1994 08:49:37 GMT', now), Date.parse('1994-11-06T08:49:37Z'));
  assert.equal(parseHTTPDate('Monday, 01-Jan-30 00:00:00 GMT', now), Date.parse('2030-01-01T00:00:00Z'));
  assert.equal(parseRetryAfter('Sun Nov 22 12:00:05 2026', now), 5000);
});

test('garbage, negative numbers, fractions, impossible dates and missing values are undefined', () => {
  for (const value of ['', 'soon', '-1', '1.5', '1e3', '0x10', '22 Nov 2026 12:00:30 GMT', '2026-11-22T12:00:30Z',
    'Sun, 31 Feb 2026 12:00:00 GMT', 'Sun, 22 Nov 2026 25:00:00 GMT', 'Sun, 22 Nov 2026 12:00:30 UTC', 'Sun, 22 Foo 2026 12:00:30 GMT']) {
    assert.equal(parseRetryAfter(value, now), undefined, value);
  }
  assert.equal(parseRetryAfter(undefined, now), undefined);
  assert.equal(parseRetryAfter(['1', '2'], now), undefined);
});
