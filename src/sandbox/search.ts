/**
 * Runs a FHIR search over the store: filters with every parameter (repeats AND, commas OR), sorts with
 * `_sort`, cuts one page with `_count` and the sandbox's own paging parameter `_offset`, and keeps only
 * the `_elements` asked for.
 * @module
 */
import type { Resource } from '../fhir/index.js';
import { badSearch, criterion, sortKey, type Predicate } from './search-criteria.js';
import { searchParamsFor, type Fields, type SearchParamDef } from './search-params.js';
import type { ResourceStore } from './store.js';

/** Page size when `_count` is absent. */
export const DEFAULT_PAGE_SIZE = 20;
/** Largest page: a larger `_count` is cut to this. */
export const MAX_PAGE_SIZE = 1000;

/** One page of search results. */
export interface SearchPage {
  /** How many resources match in all. */
  readonly total: number;
  /** The resources of this page (copies). */
  readonly resources: Resource[];
  /** The query of this page, as run. */
  readonly self: URLSearchParams;
  /** The query of the next page, when there is one. */
  readonly next: URLSearchParams | undefined;
}

interface SortBy {
  readonly def: SearchParamDef;
  readonly descending: boolean;
}

/** The tag of a resource that lacks elements it has on the server (R4 search.html#elements). */
const SUBSETTED = Object.freeze({ system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED' });

/** `_elements=a,b`: a copy with `resourceType`, `id`, `meta` (tagged SUBSETTED) and the named top-level elements only. */
function keepElements(resource: Fields, elements: readonly string[]): Fields {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) if (key === 'resourceType' || key === 'id' || key === 'meta' || elements.includes(key)) kept[key] = structuredClone(value);
  const meta = (kept.meta ?? {}) as { tag?: unknown[] };
  kept.meta = { ...meta, tag: [...(meta.tag ?? []), SUBSETTED] };
  return kept;
}

function nonNegativeInteger(name: string, value: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) > max) throw badSearch(`${name} must be an integer from 0 to ${max}`);
  return Number(value);
}

/** `_count` as asked, cut to {@link MAX_PAGE_SIZE}: a server "is not bound to return the number requested, but cannot return more" (R4 search.html). */
function pageSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  if (!/^\d+$/.test(value)) throw badSearch('_count must be a non-negative integer');
  return Math.min(Number(value), MAX_PAGE_SIZE);
}

function parseSort(value: string, defs: Readonly<Record<string, SearchParamDef>>): SortBy[] {
  return value.split(',').map((key) => {
    const descending = key.startsWith('-');
    const name = descending ? key.slice(1) : key;
    if (!Object.hasOwn(defs, name)) throw badSearch(`cannot sort by "${name}"`);
    return { def: defs[name] as SearchParamDef, descending };
  });
}

/** The `_format` values of FHIR JSON (R4 http.html#mime-type); a `+` left unencoded arrives as a space. */
const JSON_FORMATS = new Set(['json', 'application/json', 'application/fhir+json']);

/**
 * True for the general parameters `_format` and `_pretty` (R4 http.html#parameters), which every
 * interaction may carry and which select nothing; a `_format` other than JSON is a 400.
 */
function isGeneralParameter(key: string, value: string): boolean {
  if (key === '_pretty') return true;
  if (key !== '_format') return false;
  if (!JSON_FORMATS.has(value.trim().toLowerCase().replace(/ /g, '+'))) throw badSearch('_format must be json: the sandbox answers FHIR JSON only');
  return true;
}

function compare(a: Fields, b: Fields, sorts: readonly SortBy[]): number {
  for (const { def, descending } of sorts) {
    const x = sortKey(def, a);
    const y = sortKey(def, b);
    if (x === y) continue;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    return (x < y ? -1 : 1) * (descending ? -1 : 1);
  }
  return 0;
}

/**
 * Runs a search of one resource type. Throws `ERR_INVALID_SEARCH` (status 400) for an unknown
 * parameter or modifier, a bad value, or a repeated `_count`/`_sort`/`_offset`/`_elements`. A `_count` over
 * {@link MAX_PAGE_SIZE} is cut to it (the `self` link says so).
 */
export function runSearch(store: ResourceStore, type: Resource['resourceType'], query: URLSearchParams): SearchPage {
  const defs = searchParamsFor(type);
  const predicates: Predicate[] = [];
  const control = new Map<string, string>();
  const self = new URLSearchParams();
  for (const [key, value] of query) {
    if (key === '_count' || key === '_sort' || key === '_offset' || key === '_elements') {
      if (control.has(key)) throw badSearch(`${key} may appear only once`);
      control.set(key, value);
      if (key === '_sort' || key === '_elements') self.append(key, value);
      if (key === '_count') self.append(key, String(pageSize(value)));
      continue;
    }
    if (isGeneralParameter(key, value)) continue;
    const [name = '', modifier = '', ...rest] = key.split(':');
    if (!Object.hasOwn(defs, name)) throw badSearch(`unknown search parameter "${name}" for ${type}`);
    if (rest.length > 0) throw badSearch(`search parameter "${key}" has more than one modifier`);
    if (value === '') continue;
    predicates.push(criterion(name, defs[name] as SearchParamDef, modifier, value));
    self.append(key, value);
  }
  const count = pageSize(control.get('_count'));
  const offset = nonNegativeInteger('_offset', control.get('_offset') ?? '0', Number.MAX_SAFE_INTEGER);
  const sorts = control.has('_sort') ? parseSort(control.get('_sort') as string, defs) : [];
  const elements = control.get('_elements')?.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const matches = ([...store.list(type)] as unknown as Fields[]).filter((r) => predicates.every((p) => p(r)));
  if (sorts.length > 0) matches.sort((a, b) => compare(a, b, sorts));
  const withOffset = (n: number): URLSearchParams => {
    const q = new URLSearchParams(self);
    if (n > 0) q.set('_offset', String(n));
    return q;
  };
  return {
    total: matches.length,
    resources: matches.slice(offset, offset + count).map((r) => (elements === undefined ? structuredClone(r) : keepElements(r, elements)) as unknown as Resource),
    self: withOffset(offset),
    next: count > 0 && offset + count < matches.length ? withOffset(offset + count) : undefined,
  };
}
