/**
 * Parses and checks the body of a CDS Hooks service call (CDS Hooks 2.0 §"HTTP Request").
 * @module
 */
import { CDSError } from './cds-error.js';
import { validateContext } from './hooks-context.js';
import { checker, UUID } from './json-checks.js';
import type { CDSHookRequest, FHIRAuthorization, JSONObject } from './types.js';

const check = checker('ERR_CDS_REQUEST', 400);

/** Parses a JSON body, answering 400 when it is not a JSON object. */
export function parseJSONObject(bytes: Buffer): JSONObject {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new CDSError('ERR_CDS_REQUEST', 'the body is not valid JSON', 400, undefined, err);
  }
  if (!check.isObject(value)) throw new CDSError('ERR_CDS_REQUEST', 'the body must be a JSON object', 400);
  return value;
}

function fhirServerUrl(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = check.string(value, 'fhirServer');
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) check.fail('fhirServer', 'must be an http(s) URL');
  return text;
}

function fhirAuthorization(value: unknown): FHIRAuthorization | undefined {
  if (value === undefined) return undefined;
  const auth = check.object(value, 'fhirAuthorization');
  const field = (name: string): string => `fhirAuthorization.${name}`;
  if (typeof auth.expires_in !== 'number' || !Number.isFinite(auth.expires_in)) check.fail(field('expires_in'), 'must be a number');
  const result: FHIRAuthorization = {
    access_token: check.string(auth.access_token, field('access_token')),
    token_type: check.oneOf(auth.token_type, field('token_type'), ['Bearer']),
    expires_in: auth.expires_in as number,
    scope: check.string(auth.scope, field('scope')),
    subject: check.string(auth.subject, field('subject')),
  };
  const patient = check.optionalString(auth.patient, field('patient'));
  return patient === undefined ? result : { ...result, patient };
}

function prefetchGiven(value: unknown): Record<string, JSONObject | null> {
  if (value === undefined) return {};
  const prefetch = check.object(value, 'prefetch');
  for (const [key, item] of Object.entries(prefetch)) {
    if (item !== null && !check.isObject(item)) check.fail(`prefetch.${key}`, 'must be a FHIR resource or null');
  }
  return { ...(prefetch as Record<string, JSONObject | null>) };
}

/**
 * Checks a parsed call body for the service registered on `hook`. The returned `prefetch` holds only
 * what the client sent. Throws `CDSError('ERR_CDS_REQUEST', ..., 400, field)`.
 */
export function validateRequest(body: JSONObject, hook: string): CDSHookRequest {
  const sentHook = check.string(body.hook, 'hook');
  if (sentHook !== hook) check.fail('hook', `must be "${hook}" for this service`);
  const hookInstance = check.string(body.hookInstance, 'hookInstance');
  if (!UUID.test(hookInstance)) check.fail('hookInstance', 'must be a UUID');
  const fhirServer = fhirServerUrl(body.fhirServer);
  const auth = fhirAuthorization(body.fhirAuthorization);
  if (auth !== undefined && fhirServer === undefined) check.fail('fhirServer', 'is required with fhirAuthorization');
  const context = check.object(body.context, 'context');
  validateContext(hook, context);
  const request: CDSHookRequest = { hook, hookInstance, context, prefetch: prefetchGiven(body.prefetch) };
  if (fhirServer !== undefined) request.fhirServer = fhirServer;
  if (auth !== undefined) request.fhirAuthorization = auth;
  return request;
}
