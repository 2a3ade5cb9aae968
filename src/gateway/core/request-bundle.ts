/**
 * Checks on a `transaction` or `batch` Bundle before it is posted to a server's base (FHIR R4
 * http.html#transaction), and the outcome count of the answer.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import type { Bundle } from '../../fhir/index.js';
import { isJSONObject } from '../../lib/json-object.js';

/**
 * The two kinds of request Bundle.
 *
 * @example
 * ```ts
 * const kind: BundleKind = 'transaction';
 * ```
 */
export type BundleKind = 'transaction' | 'batch';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH']);

function invalid(kind: BundleKind, message: string): FhirgateError {
  return new FhirgateError('ERR_INVALID_RESOURCE', `${kind}: ${message}`);
}

/**
 * The Bundle to send, as a copy whose `type` is `kind`. A value that is not a Bundle, a Bundle of
 * another type, or an entry without `request.method` (GET, HEAD, POST, PUT, DELETE, PATCH) and
 * `request.url`, or a POST/PUT entry without a resource, is `ERR_INVALID_RESOURCE` before any I/O.
 */
export function checkRequestBundle(bundle: unknown, kind: BundleKind): Bundle {
  if (!isJSONObject(bundle)) throw invalid(kind, 'the Bundle must be an object');
  const { resourceType, type, entry } = bundle as Partial<Bundle> & { resourceType?: unknown };
  if (resourceType !== 'Bundle') throw invalid(kind, 'the resource must be a Bundle');
  if (type !== undefined && type !== kind) throw invalid(kind, `the Bundle's type is ${JSON.stringify(String(type).slice(0, 40))}, not "${kind}"`);
  if (entry !== undefined && !Array.isArray(entry)) throw invalid(kind, 'Bundle.entry must be an array');
  (entry ?? []).forEach((e: unknown, i) => {
    const request = (e as { request?: unknown } | null)?.request as { method?: unknown; url?: unknown } | undefined;
    if (typeof request !== 'object' || request === null) throw invalid(kind, `entry[${i}] has no request`);
    if (typeof request.method !== 'string' || !METHODS.has(request.method)) {
      throw invalid(kind, `entry[${i}].request.method must be one of ${[...METHODS].join(', ')}`);
    }
    if (typeof request.url !== 'string' || request.url === '') throw invalid(kind, `entry[${i}].request.url must be a non-empty string`);
    const resource = (e as { resource?: unknown }).resource as { resourceType?: unknown } | undefined;
    if ((request.method === 'POST' || request.method === 'PUT') && typeof resource?.resourceType !== 'string') {
      throw invalid(kind, `entry[${i}] (${request.method}) needs a resource`);
    }
  });
  return { ...(bundle as unknown as Bundle), type: kind };
}

/** How many entries of a response Bundle did not succeed (a `response.status` that does not start with 2). */
export function failedEntries(response: Bundle): number {
  const entries = Array.isArray(response.entry) ? response.entry : [];
  return entries.filter((e) => !/^2\d\d\b/.test(String(e?.response?.status ?? ''))).length;
}
