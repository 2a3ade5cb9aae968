/**
 * How the sandbox answers a failure: the status, OperationOutcome issue code and text. Never a stack
 * trace.
 * @module
 */
import { isFhirgateError, type ErrorCode } from '../errors.js';
import type { IssueType } from '../fhir/operation-outcome.js';

const ISSUE_FOR: Partial<Record<ErrorCode, IssueType>> = {
  ERR_NOT_FOUND: 'not-found',
  ERR_BODY_TOO_LARGE: 'too-long',
  ERR_UNSUPPORTED_MEDIA_TYPE: 'not-supported',
  ERR_CONFLICT: 'conflict',
  ERR_BAD_REQUEST: 'structure',
  ERR_INVALID_RESOURCE: 'structure',
};

/**
 * The status, issue code and text to answer a failure with: a `FhirgateError` with a status as it
 * says, anything else a 500 that shows nothing of the failure.
 */
export function failureOf(err: unknown): { status: number; code: IssueType; message: string } {
  if (isFhirgateError(err) && err.status !== undefined) {
    return { status: err.status, code: err.status === 410 ? 'deleted' : ISSUE_FOR[err.code] ?? 'invalid', message: err.message };
  }
  return { status: 500, code: 'exception', message: 'internal error in the sandbox' };
}
