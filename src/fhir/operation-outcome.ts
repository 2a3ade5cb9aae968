/**
 * Building an OperationOutcome, the body every FHIR error answer carries.
 * @module
 */
import type { OperationOutcome } from './generated/resources.js';

/** The R4B `IssueSeverity` codes, from worst to mildest. */
export const ISSUE_SEVERITIES = Object.freeze(['fatal', 'error', 'warning', 'information'] as const);

/** One R4B `IssueSeverity` code. */
export type IssueSeverity = (typeof ISSUE_SEVERITIES)[number];

/** The R4B `IssueType` codes (http://hl7.org/fhir/R4B/valueset-issue-type.html). */
export const ISSUE_TYPES = Object.freeze([
  'invalid', 'structure', 'required', 'value', 'invariant', 'security', 'login', 'unknown', 'expired',
  'forbidden', 'suppressed', 'processing', 'not-supported', 'duplicate', 'multiple-matches', 'not-found',
  'deleted', 'too-long', 'code-invalid', 'extension', 'too-costly', 'business-rule', 'conflict',
  'transient', 'lock-error', 'no-store', 'exception', 'timeout', 'incomplete', 'throttled', 'informational',
] as const);

/** One R4B `IssueType` code. */
export type IssueType = (typeof ISSUE_TYPES)[number];

/**
 * An OperationOutcome with one issue. `code` is an R4B `IssueType` code (see {@link ISSUE_TYPES}); it is
 * typed `string` so that codes picked at run time fit, and checked at run time. `diagnostics`, when
 * given, is sent to the client as is: never put a stack trace or a secret in it.
 *
 * @throws RangeError when `severity` or `code` is not an R4B code; TypeError when `diagnostics` is given
 * and not a string.
 * @example
 * ```ts
 * operationOutcome('error', 'not-found', 'Patient/123 is not known');
 * // { resourceType: 'OperationOutcome',
 * //   issue: [{ severity: 'error', code: 'not-found', diagnostics: 'Patient/123 is not known' }] }
 * ```
 */
export function operationOutcome(severity: IssueSeverity, code: IssueType | string, diagnostics?: string): OperationOutcome {
  if (!(ISSUE_SEVERITIES as readonly string[]).includes(severity)) {
    throw new RangeError(`operationOutcome: "severity" must be one of ${ISSUE_SEVERITIES.join(', ')}`);
  }
  if (!(ISSUE_TYPES as readonly string[]).includes(code)) {
    throw new RangeError(`operationOutcome: "code" must be an R4B IssueType code such as invalid or not-found`);
  }
  if (diagnostics !== undefined && typeof diagnostics !== 'string') {
    throw new TypeError('operationOutcome: "diagnostics" must be a string');
  }
  const issue = diagnostics === undefined ? { severity, code } : { severity, code, diagnostics };
  return { resourceType: 'OperationOutcome', issue: [issue] };
}

const ISSUE_TYPE_OF_STATUS: Readonly<Record<number, IssueType>> = { 400: 'invalid', 401: 'login', 403: 'forbidden', 404: 'not-found', 405: 'not-supported', 410: 'deleted', 413: 'too-costly', 415: 'not-supported' };

/** The OperationOutcome issue type that says what an HTTP error status says (`exception` for the rest). */
export function issueTypeOfStatus(status: number): IssueType {
  return ISSUE_TYPE_OF_STATUS[status] ?? 'exception';
}
