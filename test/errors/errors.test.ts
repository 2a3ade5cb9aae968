import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthTokenError, ERROR_CODES, FHIRHTTPError, FhirgateError, isFhirgateError } from '../../src/errors.js';

test('every error carries a stable code, its class name and its cause', () => {
  const cause = new Error('socket hang up');
  const err = new FhirgateError('ERR_NETWORK', 'connection reset by 127.0.0.1:9', { cause, status: 502 });
  assert.equal(err.code, 'ERR_NETWORK');
  assert.equal(err.name, 'FhirgateError');
  assert.equal(err.status, 502);
  assert.equal(err.cause, cause);
  assert.ok(err instanceof Error);
  assert.equal(new FhirgateError('ERR_CLOSED', 'closed').cause, undefined);
});

test('FHIRHTTPError keeps status, operation, reference and the OperationOutcome', () => {
  const outcome = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] };
  const err = new FHIRHTTPError('read Patient/1 failed: 404 Not Found', { status: 404, operationOutcome: outcome, operation: 'read', reference: 'Patient/1' });
  assert.deepEqual([err.code, err.name, err.status, err.operation, err.reference], ['ERR_FHIR_HTTP', 'FHIRHTTPError', 404, 'read', 'Patient/1']);
  assert.equal(err.operationOutcome, outcome);
  assert.ok(err instanceof FhirgateError);
});

test('AuthTokenError keeps the OAuth error fields', () => {
  const err = new AuthTokenError('token request failed: 401 invalid_client', { status: 401, oauthError: 'invalid_client', oauthErrorDescription: 'bad secret' });
  assert.deepEqual([err.code, err.status, err.oauthError, err.oauthErrorDescription], ['ERR_AUTH_TOKEN', 401, 'invalid_client', 'bad secret']);
});

test('isFhirgateError recognises coded errors, also rebuilt ones, and filters by code', () => {
  assert.equal(isFhirgateError(new FhirgateError('ERR_TIMEOUT', 't')), true);
  assert.equal(isFhirgateError(new FhirgateError('ERR_TIMEOUT', 't'), 'ERR_TIMEOUT'), true);
  assert.equal(isFhirgateError(new FhirgateError('ERR_TIMEOUT', 't'), 'ERR_ABORTED'), false);
  assert.equal(isFhirgateError(Object.assign(new Error('x'), { code: 'ERR_CLOSED' })), true);
  assert.equal(isFhirgateError(Object.assign(new Error('x'), { code: 'ECONNRESET' })), false);
  assert.equal(isFhirgateError({ code: 'ERR_CLOSED' }), false);
  assert.ok(Object.keys(ERROR_CODES).every((c) => c.startsWith('ERR_')));
});
