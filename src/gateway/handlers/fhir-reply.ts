/**
 * Replies in the FHIR JSON media type: resources, and OperationOutcome bodies for every failure.
 * @module
 */
import type { RouteReply } from '../../mount.js';
import { operationOutcome, type IssueType } from '../../fhir/index.js';

/** The `Content-Type` of every FHIR answer of the gateway face. */
const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/**
 * A FHIR JSON reply.
 *
 * @example
 * ```ts
 * return fhirReply(200, patient);
 * ```
 */
export function fhirReply(status: number, resource: unknown): RouteReply {
  return { status, headers: FHIR_HEADERS, body: JSON.stringify(resource) };
}

/** The headers of every FHIR reply: one frozen object, shared. */
const FHIR_HEADERS = Object.freeze({ 'content-type': FHIR_JSON }) as Record<string, string>;

/**
 * An OperationOutcome reply with one `error` issue.
 *
 * @example
 * ```ts
 * return outcomeReply(404, 'not-found', 'no transform handler is registered for Patient');
 * ```
 */
export function outcomeReply(status: number, code: IssueType, diagnostics: string): RouteReply {
  return fhirReply(status, operationOutcome('error', code, diagnostics));
}
