/**
 * The facade's replies: FHIR JSON bodies, and OperationOutcomes for what it refuses itself.
 * @module
 */
import { operationOutcome } from '../fhir/index.js';
import type { IssueType } from '../fhir/operation-outcome.js';
import type { RouteReply } from '../mount/index.js';

/** The content type of every facade answer. */
export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/** A FHIR JSON reply. */
export function fhirJSON(status: number, body: unknown, headers: Record<string, string> = {}): RouteReply {
  return { status, headers: { ...headers, 'content-type': FHIR_JSON }, body: body === undefined ? '' : JSON.stringify(body) };
}

/** An OperationOutcome reply with one error issue. */
export function outcome(status: number, code: IssueType, diagnostics: string, headers: Record<string, string> = {}): RouteReply {
  return fhirJSON(status, operationOutcome('error', code, diagnostics), headers);
}
