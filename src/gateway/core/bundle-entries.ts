/**
 * Building the entries of `transaction` and `batch` Bundles.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Bundle, BundleEntry, Resource, ResourceType } from '../../fhir/index.js';
import type { SearchParams } from './search-params.js';
import { ifNoneExistHeader } from './if-none-exist.js';
import { checkId, checkResource, checkType } from './resource-path.js';
import { searchQuery } from './search-params.js';
import type { BundleKind } from './request-bundle.js';
import { checkObject, keysOf, onlyKnownKeys } from '../../lib/options.js';

/** The keys of `createEntry`'s and `updateEntry`'s options; any other is refused with the nearest of these. */
export const ENTRY_OPTION_KEYS = Object.freeze({
  createEntry: keysOf<NonNullable<Parameters<typeof createEntry>[1]>>({ fullUrl: true, ifNoneExist: true }),
  updateEntry: keysOf<NonNullable<Parameters<typeof updateEntry>[1]>>({ ifMatch: true }),
});

/**
 * A create entry (`POST [type]`). Its `fullUrl` is a fresh `urn:uuid:` (or `options.fullUrl`): other
 * entries of the same transaction may reference it, and the server rewrites those references to the
 * new id. `ifNoneExist` makes it a conditional create.
 *
 * @example
 * ```ts
 * const patient = createEntry({ resourceType: 'Patient', name: [{ family: 'Doe' }] });
 * const obs = createEntry({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: patient.fullUrl } });
 * ```
 */
export function createEntry<R extends Resource>(resource: R, options: { fullUrl?: string; ifNoneExist?: string | SearchParams } = {}): BundleEntry<R> & { fullUrl: string } {
  const { type } = checkResource(resource, false, 'createEntry');
  checkObject(options, 'options');
  onlyKnownKeys(options, ENTRY_OPTION_KEYS.createEntry, 'options');
  if (options.fullUrl !== undefined && typeof options.fullUrl !== 'string') throw new TypeError('options.fullUrl must be a string');
  return {
    fullUrl: options.fullUrl ?? `urn:uuid:${randomUUID()}`,
    resource,
    request: { method: 'POST', url: type, ...(options.ifNoneExist === undefined ? {} : { ifNoneExist: ifNoneExistHeader(options.ifNoneExist) }) },
  };
}

/**
 * An update entry (`PUT [type]/[id]`), with `If-Match` when `options.ifMatch` (`W/"3"`) is given.
 *
 * @example
 * ```ts
 * updateEntry({ ...patient, active: false }, { ifMatch: `W/"${patient.meta?.versionId}"` });
 * ```
 */
export function updateEntry<R extends Resource>(resource: R, options: { ifMatch?: string } = {}): BundleEntry<R> {
  const { type, id } = checkResource(resource, true, 'updateEntry');
  checkObject(options, 'options');
  onlyKnownKeys(options, ENTRY_OPTION_KEYS.updateEntry, 'options');
  if (options.ifMatch !== undefined && typeof options.ifMatch !== 'string') throw new TypeError('options.ifMatch must be a string');
  return { resource, request: { method: 'PUT', url: `${type}/${id}`, ...(options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }) } };
}

/**
 * A delete entry (`DELETE [type]/[id]`).
 *
 * @example
 * ```ts
 * deleteEntry('Patient', '123');
 * ```
 */
export function deleteEntry(type: ResourceType, id: string): BundleEntry {
  return { request: { method: 'DELETE', url: `${checkType(type)}/${checkId(id)}` } };
}

/**
 * A read entry (`GET [type]/[id]`).
 *
 * @example
 * ```ts
 * readEntry('Patient', '123');
 * ```
 */
export function readEntry(type: ResourceType, id: string): BundleEntry {
  return { request: { method: 'GET', url: `${checkType(type)}/${checkId(id)}` } };
}

/**
 * A search entry (`GET [type]?params`); its answer is a searchset Bundle.
 *
 * @example
 * ```ts
 * searchEntry('Observation', { patient: '123', _count: 50 });
 * ```
 */
export function searchEntry(type: ResourceType, params: SearchParams = {}): BundleEntry {
  const query = searchQuery(params);
  return { request: { method: 'GET', url: `${checkType(type)}${query === '' ? '' : `?${query}`}` } };
}

/**
 * A `transaction` or `batch` Bundle of `entries`, for `gw.transaction()` / `gw.batch()`.
 *
 * @example
 * ```ts
 * const answer = await gw.transaction(requestBundle('transaction', [createEntry(patient), deleteEntry('Patient', 'old')]));
 * ```
 */
export function requestBundle(kind: BundleKind, entries: readonly BundleEntry[]): Bundle {
  if (kind !== 'transaction' && kind !== 'batch') throw new TypeError('kind must be "transaction" or "batch"');
  if (!Array.isArray(entries)) throw new TypeError('entries must be an array');
  return { resourceType: 'Bundle', type: kind, entry: [...entries] };
}
