/**
 * What a client is told about a source that failed: an issue type and a one-line reason, never the
 * error's own message (which may hold an upstream address).
 * @module
 */
import { ERROR_CODES, isFhirgateError } from '../../errors.js';
import type { IssueType } from '../../fhir/operation-outcome.js';

/** A reason fit for a client: a code and its one-line meaning, never the error's own message (an aggregation's or a resolution's failed source). */
export function describeFailure(reason: unknown, timeoutSeconds: number): [IssueType, string] {
  if (!isFhirgateError(reason)) return ['exception', 'the search failed'];
  switch (reason.code) {
    case 'ERR_TIMEOUT':
      return ['timeout', `no answer within ${timeoutSeconds} s`];
    case 'ERR_ABORTED':
      return ['incomplete', 'the search was aborted'];
    case 'ERR_FHIR_HTTP':
      return ['exception', `the server answered HTTP ${reason.status ?? 'error'}`];
    case 'ERR_UNKNOWN_SOURCE':
      return ['not-found', 'no source is registered under that name'];
    default:
      return ['exception', `${reason.code} (${ERROR_CODES[reason.code].meaning})`];
  }
}
