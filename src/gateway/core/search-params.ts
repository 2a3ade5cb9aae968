/**
 * Search parameters as the gateways take them, and their query string.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import type { ResourceType } from '../../fhir/index.js';
import type { HTTPTarget } from '../../http/request-options.js';
import { isJSONObject } from '../../lib/json-object.js';
import { resourceUrl } from './resource-path.js';
import type { Source } from './source-registry.js';

/**
 * A search parameter value; an array of them repeats the parameter.
 *
 * @example
 * ```ts
 * const count: SearchParamValue = 10;
 * ```
 */
export type SearchParamValue = string | number | boolean;

/**
 * Search parameters as the gateways take them: booleans in lower case, arrays repeat the parameter.
 *
 * @example
 * ```ts
 * const params: SearchParams = { patient: '123', date: ['ge2020', 'le2021'], _count: 50 };
 * ```
 */
export type SearchParams = Readonly<Record<string, SearchParamValue | readonly SearchParamValue[]>>;

/**
 * Builds the query string (without `?`) of a search: strings as they are, numbers in decimal,
 * booleans as `true`/`false`, arrays repeat the parameter (`date=ge2020&date=le2021`). Names and values
 * are percent-encoded. A value of another type, `NaN` or an infinite number is `ERR_INVALID_SEARCH`.
 */
export function searchQuery(params: SearchParams): string {
  if (!isJSONObject(params)) {
    throw new FhirgateError('ERR_INVALID_SEARCH', 'search parameters must be an object of name → value');
  }
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (name === '') throw new FhirgateError('ERR_INVALID_SEARCH', 'a search parameter has an empty name');
    for (const one of Array.isArray(value) ? (value as readonly unknown[]) : [value]) {
      parts.push(`${encodeText(name, name)}=${encodeText(name, valueText(name, one))}`);
    }
  }
  return parts.join('&');
}

/** Percent-encodes `text`; text that is not well-formed Unicode (a lone surrogate) is `ERR_INVALID_SEARCH`. */
function encodeText(name: string, text: string): string {
  try {
    return encodeURIComponent(text);
  } catch (err) {
    throw new FhirgateError('ERR_INVALID_SEARCH', `search parameter ${JSON.stringify(name.slice(0, 60))} holds text that is not well-formed Unicode`, { cause: err });
  }
}

function valueText(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new FhirgateError('ERR_INVALID_SEARCH', `search parameter ${JSON.stringify(name.slice(0, 60))} must be a string, a finite number or a boolean`);
}

/**
 * The target of `[base]/[type]?params`, a search's first page, built like `resourceUrl` from the base
 * parsed once: a `URL` per search (parsed, then its query set and parsed again) was ~200 B more of each
 * search waiting for a socket, and its parse CPU. The query is the one {@link searchUrl} gives (`'`,
 * which `encodeURIComponent` leaves, escaped as a URL's query setter escapes it).
 */
export function searchTarget(src: Source, type: ResourceType, params: SearchParams): HTTPTarget {
  const query = searchQuery(params);
  const target = resourceUrl(src.base, type);
  if (query !== '') target.search = `?${query.replaceAll("'", '%27')}`;
  return target;
}

/** `[base]/[type]?params` of a search's first page, as a URL (for following its pages by `href`). */
export function searchUrl(src: Source, type: ResourceType, params: SearchParams): URL {
  const url = new URL(`${src.baseUrl}/${type}`);
  url.search = searchQuery(params);
  return url;
}
