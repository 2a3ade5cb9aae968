import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_CODES, FhirgateError, HTTP_STATUS_BY_CODE, httpStatusOf, type ErrorCode } from '../../src/errors.js';
import { replyForError } from '../../src/gateway/http-face/reply-for-error.js';
import { fakeRequest } from '../support/route-request.js';
import { join } from 'node:path';
import { ROOT } from '../support/code-tree.js';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

test('every code has one record: a meaning, an HTTP status and whether it is an upstream failure', () => {
  assert.ok(CODES.length >= 40, `${CODES.length} codes`);
  for (const code of CODES) {
    const { meaning, status, upstream } = ERROR_CODES[code];
    assert.match(code, /^ERR_[A-Z_]+$/);
    assert.ok(meaning.length > 10, `${code}: meaning`);
    assert.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: status ${status}`);
    assert.equal(typeof upstream, 'boolean', `${code}: upstream`);
    if (upstream) assert.ok(status === 502 || status === 504, `${code}: an upstream failure is answered 502 or 504, not ${status}`);
  }
});

test('HTTP_STATUS_BY_CODE and httpStatusOf read the record', () => {
  assert.deepEqual(Object.keys(HTTP_STATUS_BY_CODE), CODES);
  for (const code of CODES) {
    assert.equal(HTTP_STATUS_BY_CODE[code], ERROR_CODES[code].status, code);
    assert.equal(httpStatusOf(new FhirgateError(code, 'x')), code === 'ERR_FHIR_HTTP' ? 502 : ERROR_CODES[code].status, code);
    // An upstream failure's own status is the upstream's; any other error's own 4xx/5xx is the answer.
    const teapot = httpStatusOf(new FhirgateError(code, 'x', { status: 418 }));
    assert.equal(teapot, ERROR_CODES[code].upstream ? ERROR_CODES[code].status : 418, code);
  }
});

test('a transform or aggregate handler that throws an upstream failure is answered with the status of the record; other codes are the handler\'s 500', () => {
  for (const code of CODES) {
    if (code === 'ERR_FHIR_HTTP' || code === 'ERR_UNKNOWN_SOURCE') continue; // their own rules: transform.test.ts
    // An upstream failure may carry the upstream's status (here 401); it never becomes the answer.
    const error = new FhirgateError(code, 'secret-diag', ERROR_CODES[code].upstream ? { status: 401 } : {});
    const reply = replyForError(error, fakeRequest(), { kind: 'aggregate', type: 'Observation', sourcesNamed: true });
    const expected = ERROR_CODES[code].upstream || code === 'ERR_CLOSED' ? ERROR_CODES[code].status : 500;
    assert.equal(reply.status, expected, code);
    const body = JSON.parse(String(reply.body)) as { issue: Array<{ code: string; diagnostics: string }> };
    assert.equal(body.issue[0]!.code === 'exception', expected === 500, `${code}: ${body.issue[0]!.code}`);
    assert.doesNotMatch(String(reply.body), /secret-diag/);
  }
});

test('the misused codes have their own: a 405, a duplicate route, an injected gateway that is not registered', () => {
  assert.equal(ERROR_CODES.ERR_METHOD_NOT_ALLOWED.status, 405);
  assert.equal(ERROR_CODES.ERR_NOT_FOUND.status, 404);
  assert.match(ERROR_CODES.ERR_DUPLICATE_ROUTE.meaning, /route/);
  assert.match(ERROR_CODES.ERR_UNKNOWN_DEPENDENCY.meaning, /injects/);
});

test('the errors reference (docs/errors.md) has one row per code with the status and upstream flag of its record', () => {
  const page = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
  const rows = [...page.matchAll(/^\| `(ERR_[A-Z_]+)` \| (\d{3}) \| (yes)? \|/gm)].map((m) => [m[1], Number(m[2]), m[3] === 'yes'] as const);
  assert.deepEqual(rows.map(([code]) => code).sort(), [...CODES].sort(), 'every code, once');
  for (const [code, status, upstream] of rows) {
    assert.deepEqual([status, upstream], [ERROR_CODES[code as ErrorCode].status, ERROR_CODES[code as ErrorCode].upstream], code);
  }
});
