import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay, checkRetryOptions, isIdempotent, retryAction, RETRY_DEFAULTS } from '../../src/http/retry-policy.js';
import type { RetryAction, TryOutcome } from '../../src/http/retry-policy.js';

/** A seeded generator (mulberry32), so that the jitter bounds are checked over many draws reproducibly. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('full jitter: retry n waits in [0, min(cap, base × 2^(n-1)))', () => {
  const policy = { retryBaseDelayMs: 100, maxRetryDelayMs: 1000 };
  const random = seeded(42);
  for (let retry = 1; retry <= 8; retry++) {
    const ceiling = Math.min(1000, 100 * 2 ** (retry - 1));
    const draws = Array.from({ length: 500 }, () => backoffDelay(retry, policy, random));
    assert.ok(draws.every((d) => d >= 0 && d < ceiling), `retry ${retry}`);
    assert.ok(Math.max(...draws) > ceiling * 0.9, `retry ${retry} spreads up to its ceiling`);
    assert.ok(Math.min(...draws) < ceiling * 0.1, `retry ${retry} spreads down to 0`);
  }
  assert.equal(backoffDelay(1, policy, () => 0), 0);
  assert.equal(backoffDelay(3, policy, () => 0.5), 200);
  assert.equal(backoffDelay(30, policy, () => 0.5), 500);
  const defaults = { retryBaseDelayMs: RETRY_DEFAULTS.retryBaseDelayMs, maxRetryDelayMs: RETRY_DEFAULTS.maxRetryDelayMs };
  for (let i = 0; i < 100; i++) assert.ok(backoffDelay(2, defaults) < 200, 'Math.random by default');
});

test('idempotent: GET, HEAD, OPTIONS, PUT, DELETE, and a POST with If-None-Exist', () => {
  for (const m of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']) assert.equal(isIdempotent(m, {}), true, m);
  assert.equal(isIdempotent('POST', {}), false);
  assert.equal(isIdempotent('PATCH', {}), false);
  assert.equal(isIdempotent('POST', { 'if-none-exist': 'identifier=a|1' }), true);
});

test('the retry decision table', () => {
  const policy = checkRetryOptions({});
  const get = { method: 'GET', headers: {} };
  const put = { method: 'PUT', headers: {} };
  const post = { method: 'POST', headers: {} };
  const conditional = { method: 'POST', headers: { 'if-none-exist': 'identifier=a|1' } };
  const rows: [typeof get, TryOutcome, boolean, RetryAction][] = [
    [get, { status: 429 }, false, 'backoff'],
    [get, { status: 502 }, false, 'backoff'],
    [get, { status: 503 }, false, 'backoff'],
    [put, { status: 504 }, false, 'backoff'],
    [get, { status: 500 }, false, 'none'],
    [get, { status: 404 }, false, 'none'],
    [get, { status: 200 }, false, 'none'],
    [post, { status: 503 }, false, 'none'],
    [post, { status: 429 }, false, 'none'],
    [conditional, { status: 503 }, false, 'backoff'],
    [get, { failure: 'refused' }, false, 'backoff'],
    [post, { failure: 'refused' }, false, 'backoff'],
    [get, { failure: 'reset' }, false, 'backoff'],
    [post, { failure: 'reset' }, false, 'none'],
    [conditional, { failure: 'reset' }, false, 'backoff'],
    [get, { failure: 'stale' }, false, 'fresh-socket'],
    [post, { failure: 'stale' }, false, 'fresh-socket'],
    [get, { failure: 'stale' }, true, 'backoff'],
    [post, { failure: 'stale' }, true, 'none'],
    [get, { failure: 'other' }, false, 'none'],
    [post, { failure: 'other' }, false, 'none'],
  ];
  for (const [request, outcome, staleReplaced, expected] of rows) {
    assert.equal(retryAction(request, outcome, policy, staleReplaced), expected, `${request.method} ${JSON.stringify(outcome)} ${staleReplaced}`);
  }
  assert.equal(retryAction(get, { status: 500 }, checkRetryOptions({ retryOn: [500] }), false), 'backoff');
  assert.equal(retryAction(get, { status: 503 }, checkRetryOptions({ retryOn: [500] }), false), 'none');
});

test('retry options: defaults, retry: false is no retry, misuse names the option', () => {
  const policy = checkRetryOptions({});
  assert.equal(policy.maxRetries, 2);
  assert.deepEqual([...policy.retryOn], [429, 502, 503, 504]);
  assert.equal(policy.retryBaseDelayMs, 100);
  assert.equal(policy.maxRetryDelayMs, 10_000);
  assert.equal(checkRetryOptions({ retry: false, maxRetries: 5 }).maxRetries, 0);
  assert.equal(checkRetryOptions({ maxRetries: 0 }).maxRetries, 0);
  const retryOn = [503];
  const copied = checkRetryOptions({ retryOn });
  retryOn.push(500);
  assert.deepEqual([...copied.retryOn], [503]);
  assert.throws(() => checkRetryOptions({ retry: 'no' as never }), { name: 'TypeError', message: /options\.retry / });
  assert.throws(() => checkRetryOptions({ maxRetries: 1.5 }), { name: 'RangeError', message: /maxRetries/ });
  assert.throws(() => checkRetryOptions({ maxRetries: -1 }), { name: 'RangeError', message: /maxRetries/ });
  assert.throws(() => checkRetryOptions({ retryOn: [200] }), { name: 'TypeError', message: /retryOn/ });
  assert.throws(() => checkRetryOptions({ retryOn: '503' as never }), { name: 'TypeError', message: /retryOn/ });
  assert.throws(() => checkRetryOptions({ retryBaseDelayMs: -1 }), { name: 'RangeError', message: /retryBaseDelayMs/ });
  assert.throws(() => checkRetryOptions({ maxRetryDelayMs: Infinity }), { name: 'RangeError', message: /maxRetryDelayMs/ });
  assert.throws(() => checkRetryOptions({ maxRetryDelayMs: 'x' as never }), { name: 'TypeError', message: /maxRetryDelayMs/ });
});
