/**
 * Parsing JSON request bodies: the media type check and the JSON parse, with the host's error codes.
 * @module
 */
import { FhirgateError } from '../errors.js';

/** True for `application/json` and any `+json` media type (`application/fhir+json`). */
function isJSONMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * Parses a JSON body: `undefined` when it is empty; `ERR_UNSUPPORTED_MEDIA_TYPE` (415) when it is not
 * empty and `contentType` is not a JSON media type; `ERR_BAD_REQUEST` (400) when it is not valid JSON.
 */
export function parseJSONBody(bytes: Buffer, contentType: string | undefined): unknown {
  if (bytes.length === 0) return undefined;
  if (!isJSONMediaType(contentType)) {
    throw new FhirgateError('ERR_UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json', { status: 415 });
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new FhirgateError('ERR_BAD_REQUEST', 'the request body is not valid JSON', { status: 400 });
  }
}
