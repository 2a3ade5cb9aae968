/**
 * Replies in the FHIR JSON media type: resources, and OperationOutcome bodies for every failure.
 * @module
 */
import type { PublicError, RouteReply } from '../../mount/index.js';
import { operationOutcome } from '../../fhir/index.js';
import { issueTypeOfStatus } from '../../fhir/operation-outcome.js';
import type { IssueType } from '../../fhir/operation-outcome.js';

/** The `Content-Type` of every FHIR answer of the gateway face. */
const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/** A FHIR JSON reply. */
export function fhirReply(status: number, resource: unknown): RouteReply {
  return { status, headers: FHIR_HEADERS, body: JSON.stringify(resource) };
}

/** The headers of every FHIR reply: one frozen object, shared. */
const FHIR_HEADERS = Object.freeze({ 'content-type': FHIR_JSON }) as Record<string, string>;

/** An OperationOutcome reply with one `error` issue. */
export function outcomeReply(status: number, code: IssueType, diagnostics: string): RouteReply {
  return fhirReply(status, operationOutcome('error', code, diagnostics));
}

/**
 * The gateway face's answer to an error the host met under its prefix (no route, a method not
 * allowed, a missing API key, a body too large): an OperationOutcome with the issue type of the status.
 */
export function outcomeErrorReply(error: PublicError): RouteReply {
  return outcomeReply(error.status, issueTypeOfStatus(error.status), error.message);
}
