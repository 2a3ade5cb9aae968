/**
 * Writing answers: FHIR JSON, OperationOutcome errors and OAuth JSON. Writes to a response that was
 * already ended or whose socket is gone are skipped, so a fault or a vanished client never crashes.
 * @module
 */
import type { ServerResponse } from 'node:http';
import { operationOutcome } from '../fhir/index.js';
import type { IssueType } from '../fhir/operation-outcome.js';

/** The FHIR JSON media type with its charset. */
export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/** Sends `text` with a content type (or no body at all when `text` is undefined). */
export function sendText(
  res: ServerResponse,
  status: number,
  text: string | undefined,
  contentType: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    ...(text === undefined ? {} : { 'content-type': contentType }),
    ...(status === 204 ? {} : { 'content-length': String(text === undefined ? 0 : Buffer.byteLength(text)) }),
    ...headers,
  });
  res.end(text);
}

/** Sends `body` as JSON (or nothing when `body` is undefined). */
export function sendJSON(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
  contentType: string = FHIR_JSON,
): void {
  sendText(res, status, body === undefined ? undefined : JSON.stringify(body), contentType, headers);
}

/** Sends an OperationOutcome with one issue (`severity` error unless the status is below 400). */
export function sendOutcome(
  res: ServerResponse,
  status: number,
  code: IssueType,
  diagnostics: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendJSON(res, status, operationOutcome(status < 400 ? 'information' : 'error', code, diagnostics), headers);
}
