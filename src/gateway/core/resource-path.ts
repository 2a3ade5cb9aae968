/**
 * Checks on resource type names, ids and resources, done before any URL is built.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import { isFHIRId, isResourceType } from '../../fhir/index.js';
import type { ResourceType } from '../../fhir/index.js';
import type { HTTPTarget } from '../../http/request-options.js';
import { isJSONObject } from '../../lib/json-object.js';

/** `type` as an R4B resource type name, else `ERR_INVALID_RESOURCE_TYPE`. */
export function checkType(type: unknown): ResourceType {
  if (typeof type === 'string' && isResourceType(type)) return type;
  const shown = typeof type === 'string' ? JSON.stringify(type.slice(0, 64)) : typeof type;
  throw new FhirgateError('ERR_INVALID_RESOURCE_TYPE', `${shown} is not a FHIR resource type name`);
}

/** `id` as a FHIR id (`[A-Za-z0-9\-.]{1,64}`), else `ERR_INVALID_ID`. */
export function checkId(id: unknown): string {
  if (typeof id === 'string' && isFHIRId(id)) return id;
  const shown = typeof id === 'string' ? JSON.stringify(id.slice(0, 70)) : typeof id;
  throw new FhirgateError('ERR_INVALID_ID', `${shown} is not a FHIR id ([A-Za-z0-9-.]{1,64})`);
}

/**
 * The type and id of a resource about to be sent. Not an object, or no `resourceType`, is
 * `ERR_INVALID_RESOURCE`; with `needId`, a missing id is `ERR_INVALID_RESOURCE` too.
 */
export function checkResource(resource: unknown, needId: boolean, operation: string): { type: ResourceType; id: string | undefined } {
  if (!isJSONObject(resource)) {
    throw new FhirgateError('ERR_INVALID_RESOURCE', `${operation}: the resource must be an object`);
  }
  const { resourceType, id } = resource as { resourceType?: unknown; id?: unknown };
  if (resourceType === undefined) throw new FhirgateError('ERR_INVALID_RESOURCE', `${operation}: the resource has no resourceType`);
  const type = checkType(resourceType);
  if (id === undefined) {
    if (needId) throw new FhirgateError('ERR_INVALID_RESOURCE', `${operation} ${type}: the resource has no id`);
    return { type, id: undefined };
  }
  return { type, id: checkId(id) };
}

/** A source's FHIR base URL parsed once; `pathname` has no trailing slash (`''` for a base at the root). */
export type SourceBase = Readonly<Omit<HTTPTarget, 'search'>>;

/** Parses a FHIR base URL once, for {@link resourceUrl}. */
export function sourceBase(baseUrl: string): SourceBase {
  const url = new URL(baseUrl);
  const { origin, protocol, hostname, port, username, password } = url;
  return Object.freeze({ origin, protocol, hostname, port, username, password, pathname: url.pathname.replace(/\/$/, '') });
}

/**
 * The target of `[base]/[type]` or `[base]/[type]/[id]`, from checked parts (a type name, a FHIR id:
 * nothing to escape, no dot segment): built from the base parsed once, without a URL parse per request
 * (see `HTTPTarget`).
 */
export function resourceUrl(base: SourceBase, type: ResourceType, id?: string): HTTPTarget {
  const { origin, protocol, hostname, port, username, password } = base;
  return { origin, protocol, hostname, port, username, password, pathname: `${base.pathname}/${type}${id === undefined ? '' : `/${id}`}`, search: '' };
}
