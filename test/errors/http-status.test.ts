import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthTokenError, FHIRHTTPError, FhirgateError, HTTP_STATUS_BY_CODE, httpStatusOf } from '../../src/errors.js';

test('one table maps codes to HTTP statuses; an error that is not fhirgate\'s is a 500', () => {
  assert.equal(httpStatusOf(new FhirgateError('ERR_BODY_TOO_LARGE', 'too big')), 413);
  assert.equal(httpStatusOf(new FhirgateError('ERR_CLOSED', 'closed')), 503);
  assert.equal(httpStatusOf(new FhirgateError('ERR_TIMEOUT', 'slow')), 504);
  assert.equal(httpStatusOf(new FhirgateError('ERR_NETWORK', 'reset')), 502);
  assert.equal(httpStatusOf(new FhirgateError('ERR_HANDLER', 'bug')), 500);
  assert.equal(httpStatusOf(new Error('boom')), 500);
  assert.equal(httpStatusOf('not an error'), 500);
  assert.equal(HTTP_STATUS_BY_CODE.ERR_UNSUPPORTED_MEDIA_TYPE, 415);
});

test("an error's own 4xx/5xx status wins, except an upstream failure's, which is the upstream's and not ours", () => {
  assert.equal(httpStatusOf(new FhirgateError('ERR_BAD_REQUEST', 'teapot', { status: 418 })), 418);
  assert.equal(httpStatusOf(new FhirgateError('ERR_NOT_FOUND', 'gone', { status: 410 })), 410);
  assert.equal(httpStatusOf(new FhirgateError('ERR_NOT_FOUND', 'odd status', { status: 299 })), 404);
  assert.equal(httpStatusOf(new AuthTokenError('token endpoint said 500', { status: 500 })), 502);
  assert.equal(httpStatusOf(new FhirgateError('ERR_FHIR_RESPONSE', 'not JSON', { status: 200 })), 502);
});

test('an upstream FHIR 404 or 410 passes through; any other upstream status is a 502', () => {
  assert.equal(httpStatusOf(new FHIRHTTPError('read Patient/1 failed: 404', { status: 404 })), 404);
  assert.equal(httpStatusOf(new FHIRHTTPError('read Patient/1 failed: 410', { status: 410 })), 410);
  for (const status of [400, 401, 403, 412, 500, 503]) {
    assert.equal(httpStatusOf(new FHIRHTTPError(`failed: ${status}`, { status })), 502, String(status));
  }
});
