/**
 * Parsing FHIR JSON request bodies (read under the size limit by `lib/read-body`).
 * @module
 */
import { FhirgateError } from '../errors.js';
import { isResourceType, type Resource } from '../fhir/index.js';
import { isJSONObject } from '../lib/json-object.js';

/**
 * Parses a FHIR JSON body that must be a resource of `type`: 415 for another media type, 400 for
 * malformed JSON, a non-resource or a resource of another type.
 */
export function parseResource(contentType: string | undefined, body: Buffer, type: string): Resource {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (media !== 'application/fhir+json' && media !== 'application/json') {
    throw new FhirgateError('ERR_UNSUPPORTED_MEDIA_TYPE', 'the body must be application/fhir+json', { status: 415 });
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new FhirgateError('ERR_BAD_REQUEST', 'the body is not valid JSON', { status: 400 });
  }
  const resourceType = (value as { resourceType?: unknown } | null)?.resourceType;
  if (!isJSONObject(value) || typeof resourceType !== 'string' || !isResourceType(resourceType)) {
    throw new FhirgateError('ERR_INVALID_RESOURCE', 'the body is not a FHIR resource', { status: 400 });
  }
  if (resourceType !== type) {
    throw new FhirgateError('ERR_INVALID_RESOURCE_TYPE', `the body is a ${resourceType}, the URL names ${type}`, { status: 400 });
  }
  return value as unknown as Resource;
}
