/**
 * A helper for aggregate handlers: search several sources in parallel and merge the answers into
 * one `searchset` Bundle, reporting the sources that failed instead of failing the whole answer.
 * @module
 */
import { FhirgateError } from '../errors.js';
import { isResourceType, operationOutcome, type Bundle, type BundleEntry, type Coding, type Resource, type ResourceType } from '../fhir/index.js';
import { isJSONObject } from '../lib/json-object.js';
import { keysOf, onlyKnownKeys, signalOption } from '../lib/options.js';
import { describeFailure } from './core/describe-failure.js';
import type { SearchParams } from './core/search-params.js';
import { SOURCE_TAG_SYSTEM } from './core/source-tag.js';
import { searchSources, type SearchOutcome, type SearchingGateway, type SourcesSearch } from './source-searches.js';

export { SOURCE_TAG_SYSTEM };

/**
 * Options of {@link aggregateSources}.
 *
 * @example
 * ```ts
 * const options: AggregateSourcesOptions = { resourceType: 'Condition', params: { patient: '123' }, sources: ['epic'], timeoutSeconds: 5 };
 * ```
 */
export interface AggregateSourcesOptions {
  /** The resource type searched at every source. */
  resourceType: ResourceType;
  /** The search parameters sent to every source. Default none. */
  params?: SearchParams;
  /** The source names to search, in the order their entries appear. */
  sources: readonly string[];
  /** The time-out of each source's search, in seconds. Default 30. */
  timeoutSeconds?: number;
  /** Aborts every search; the sources not done yet are reported as failed. */
  signal?: AbortSignal;
}

/** The keys of {@link AggregateSourcesOptions}; any other is refused with the nearest of these. */
export const AGGREGATE_OPTION_KEYS = keysOf<AggregateSourcesOptions>({ resourceType: true, params: true, sources: true, timeoutSeconds: true, signal: true });

const DEFAULTS = Object.freeze({ timeoutSeconds: 30 });
/** The longest time-out a timer can hold (2^31 - 1 ms), in whole seconds. */
const MAX_TIMEOUT_SECONDS = 2_147_483;

/**
 * Searches `resourceType` with `params` at every source in parallel, each within `timeoutSeconds`, and
 * answers one `searchset` Bundle: each source's `match` and `include` entries (first page), each resource
 * tagged with its source in `meta.tag` (`system` {@link SOURCE_TAG_SYSTEM}, `code` the source name),
 * duplicates on (source, type, id) dropped, the sources' own `outcome` entries skipped, and one
 * OperationOutcome entry (`search.mode: 'outcome'`) per source that failed or timed out. `total` counts
 * the `match` entries. Throws at once on bad options (`TypeError`, `RangeError`,
 * `ERR_INVALID_RESOURCE_TYPE`); never rejects because of a source.
 *
 * @example
 * ```ts
 * gw.aggregate('Observation', (patientId, sources = ['epic', 'cerner']) =>
 *   aggregateSources(gw, { resourceType: 'Observation', params: { patient: patientId }, sources, timeoutSeconds: 10 }));
 * ```
 */
export function aggregateSources(gw: SearchingGateway, options: AggregateSourcesOptions): Promise<Bundle> {
  if (typeof gw !== 'object' || gw === null || typeof gw.search !== 'function') {
    throw new TypeError('aggregateSources: gw must have a search method');
  }
  const search = checkOptions(options);
  return searchSources(gw, search).then((outcomes) => merge(search, outcomes));
}

/** The one Bundle of every source's outcome. */
function merge(o: SourcesSearch, results: readonly SearchOutcome[]): Bundle {
  const entries: BundleEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  results.forEach((result, i) => {
    const source = o.sources[i] as string;
    if (result.status === 'rejected') {
      entries.push(failureEntry(source, result.reason, o.timeoutSeconds));
      return;
    }
    for (const entry of result.value.entry ?? []) {
      const resource = entry.resource;
      if (entry.search?.mode === 'outcome' || resource === undefined) continue;
      const key = JSON.stringify([source, resource.resourceType, resource.id ?? null]);
      if (resource.id !== undefined && seen.has(key)) continue;
      seen.add(key);
      entries.push({ ...entry, resource: tagged(resource, source) });
      if ((entry.search?.mode ?? 'match') === 'match') total += 1;
    }
  });
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    timestamp: new Date().toISOString(),
    total,
    ...(entries.length > 0 ? { entry: entries } : {}),
  };
}

function sourceTag(source: string): Coding {
  return { system: SOURCE_TAG_SYSTEM, code: source };
}

/** A copy of `resource` whose `meta.tag` names the source; the original is left untouched. */
function tagged(resource: Resource, source: string): Resource {
  const tags = resource.meta?.tag ?? [];
  if (tags.some((t) => t.system === SOURCE_TAG_SYSTEM && t.code === source)) return resource;
  return { ...resource, meta: { ...resource.meta, tag: [...tags, sourceTag(source)] } };
}

function failureEntry(source: string, reason: unknown, timeoutSeconds: number): BundleEntry {
  const [code, why] = describeFailure(reason, timeoutSeconds);
  const outcome = operationOutcome('error', code, `source ${JSON.stringify(source)} failed: ${why}`);
  return { resource: { ...outcome, meta: { tag: [sourceTag(source)] } }, search: { mode: 'outcome' } };
}

function checkOptions(options: AggregateSourcesOptions): SourcesSearch {
  if (typeof options !== 'object' || options === null) throw new TypeError('aggregateSources: options must be an object');
  onlyKnownKeys(options, AGGREGATE_OPTION_KEYS, 'aggregateSources: options');
  const { resourceType, params = {}, sources, timeoutSeconds = DEFAULTS.timeoutSeconds, signal } = options;
  if (!isResourceType(resourceType)) {
    throw new FhirgateError('ERR_INVALID_RESOURCE_TYPE', `aggregateSources: ${JSON.stringify(String(resourceType).slice(0, 80))} is not a FHIR resource type name`);
  }
  if (!isJSONObject(params)) {
    throw new TypeError('aggregateSources: options.params must be an object of search parameters');
  }
  if (!Array.isArray(sources) || !sources.every((s) => typeof s === 'string' && s !== '')) {
    throw new TypeError('aggregateSources: options.sources must be an array of source names');
  }
  if (typeof timeoutSeconds !== 'number') throw new TypeError('aggregateSources: options.timeoutSeconds must be a number');
  if (!(timeoutSeconds > 0 && timeoutSeconds <= MAX_TIMEOUT_SECONDS)) {
    throw new RangeError(`aggregateSources: options.timeoutSeconds must be > 0 and <= ${MAX_TIMEOUT_SECONDS} seconds, got ${timeoutSeconds}`);
  }
  signalOption(signal, 'aggregateSources: options.signal');
  return Object.freeze({ type: resourceType, params: { ...params }, sources: [...new Set(sources)], timeoutSeconds, signal });
}
