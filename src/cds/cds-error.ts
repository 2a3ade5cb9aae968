/**
 * The error of the CDS room: a {@link FhirgateError} with the HTTP status to answer and, for validation
 * failures, the JSON path of the offending field.
 * @module
 */
import { FhirgateError, type ErrorCode } from '../errors.js';
import { json, type RouteReply } from '../mount/index.js';

/**
 * A CDS Hooks failure with the status to answer and the field at fault.
 *
 * @example
 * ```ts
 * throw new CDSError('ERR_CDS_REQUEST', 'context.patientId must be a FHIR id', 400, 'context.patientId');
 * ```
 */
export class CDSError extends FhirgateError {
  declare readonly status: number;
  /** The JSON path of the field at fault (`context.patientId`, `cards[0].summary`), when there is one. */
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, status: number, field?: string, cause?: unknown) {
    super(code, message, { status, cause });
    this.field = field;
  }
}

/** The JSON error reply `{ error: { code, message, field? } }` for a {@link CDSError}. */
export function cdsErrorReply(err: CDSError, headers: Record<string, string> = {}): RouteReply {
  const error = err.field === undefined
    ? { code: err.code, message: err.message }
    : { code: err.code, message: err.message, field: err.field };
  return json(err.status, { error }, headers);
}
