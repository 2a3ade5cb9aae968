/**
 * What a write's answer holds: the resource it returned, or the one read back from its location (a
 * server that ignores `Prefer: return=representation`), and the version a later save must match.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import type { HTTPResponse, HTTPTarget } from '../../http/request-options.js';
import { MAX_RESOURCE_DEPTH, nestsDeeperThan } from '../../lib/json-depth.js';
import { isJSONObject } from '../../lib/json-object.js';

/** A resource as read for a versioned save. */
export interface Versioned {
  resource: Record<string, unknown>;
  /** The resource as read, serialised: a save of an unchanged resource is skipped. */
  original: string;
  etag: string | undefined;
}

/**
 * What the answer is about: the source's base URL (a relative location is resolved against it), the
 * resource type, the gateway operation, and the URL to read back when the answer names no location.
 */
export interface WriteAnswer {
  readonly baseUrl: string;
  readonly type: string;
  readonly operation: string;
  readonly fallback: HTTPTarget | undefined;
}

/**
 * The resource in a 2xx answer. When the body is empty or an OperationOutcome, the resource is read
 * back (with `get`, which keeps to the source's origin) from `Content-Location`/`Location`, else from
 * `about.fallback`; a location that is not a URL, or no way to read back, is `ERR_FHIR_RESPONSE`.
 */
export async function resourceOf(res: HTTPResponse, about: WriteAnswer, get: (url: HTTPTarget) => Promise<HTTPResponse>): Promise<Record<string, unknown>> {
  const { type, operation } = about;
  const what = `${operation} ${type}`;
  if (res.body.length > 0 && !isOutcome(res)) return resourceFromAnswer(res, type, what);
  const location = [res.headers['content-location'], res.headers.location].find((l) => typeof l === 'string' && l.trim() !== '')?.trim();
  const base = `${about.baseUrl}/`;
  if (location !== undefined && !URL.canParse(location, base)) {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with a Location that is not a URL`, { status: res.status });
  }
  const url = location === undefined ? about.fallback : new URL(location, base);
  if (url === undefined) {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with neither the resource nor a Location`, { status: res.status });
  }
  return resourceFromAnswer(await get(url), type, what);
}

function isOutcome(res: HTTPResponse): boolean {
  try {
    return (JSON.parse(res.body.toString('utf8')) as { resourceType?: unknown } | null)?.resourceType === 'OperationOutcome';
  } catch {
    return false;
  }
}

/** The version a save must match: the `ETag` header, else `W/"<meta.versionId>"`, else `undefined`. */
export function etagOf(res: HTTPResponse, resource: Record<string, unknown>): string | undefined {
  const header = res.headers.etag;
  if (typeof header === 'string' && header !== '') return header;
  const version = (resource.meta as { versionId?: unknown } | undefined)?.versionId;
  return typeof version === 'string' ? `W/"${version}"` : undefined;
}


/**
 * The JSON object in a 2xx answer, checked to be a resource of `resourceType` (when given) nested at
 * most {@link MAX_RESOURCE_DEPTH} levels deep; anything else is `ERR_FHIR_RESPONSE`.
 */
export function resourceFromAnswer(res: HTTPResponse, resourceType: string | undefined, what: string): Record<string, unknown> {
  let value: unknown;
  const text = res.body.toString('utf8');
  if (nestsDeeperThan(text, MAX_RESOURCE_DEPTH)) {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with JSON nested more than ${MAX_RESOURCE_DEPTH} levels deep`, { status: res.status });
  }
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with a body that is not JSON`, { cause, status: res.status });
  }
  const type = (value as { resourceType?: unknown } | null)?.resourceType;
  if (!isJSONObject(value) || typeof type !== 'string') {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with JSON that is not a resource`, { status: res.status });
  }
  if (resourceType !== undefined && type !== resourceType) {
    throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: expected a ${resourceType}, the server sent a ${type.slice(0, 64)}`, { status: res.status });
  }
  return value;
}
