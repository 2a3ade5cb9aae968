/**
 * Paging through search results: the options of `pages`/`searchAll`, the `next` link of a page (only
 * on the source's origin, never one already followed), and the matches of a page.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import type { Bundle, BundleEntry, Resource } from '../../fhir/index.js';
import { keysOf, numberOption, onlyKnownKeys, signalOption } from '../../lib/options.js';

/**
 * Options of `gw.pages(...)`.
 *
 * @example
 * ```ts
 * for await (const page of gw.pages('Observation', { patient: '123' }, 'epic', { maxPages: 5, signal: AbortSignal.timeout(60_000) })) console.log(page.entry?.length);
 * ```
 */
export interface PageOptions {
  /** Pages fetched at most (the first included), a positive integer. Default: no limit. */
  maxPages?: number;
  /** Aborts the page being fetched (`ERR_ABORTED`; `ERR_TIMEOUT` when the reason is a `TimeoutError`). Not on `FHIRGateway`. */
  signal?: AbortSignal;
}

/**
 * Options of `gw.searchAll(...)`.
 *
 * @example
 * ```ts
 * for await (const obs of gw.searchAll('Observation', { patient: '123' }, 'epic', { maxResources: 500 })) console.log(obs.id);
 * ```
 */
export interface SearchAllOptions extends PageOptions {
  /** Resources yielded at most, a positive integer; no page is fetched past it. Default: no limit. */
  maxResources?: number;
}

/** The paging options after validation: limits as numbers (`Infinity` when absent). */
export interface PagingLimits {
  readonly maxPages: number;
  readonly maxResources: number;
  readonly signal: AbortSignal | undefined;
}

/** The keys of `pages`' and `searchAll`'s options; any other is refused with the nearest of these. */
export const PAGING_OPTION_KEYS = Object.freeze({
  pages: keysOf<PageOptions>({ maxPages: true, signal: true }),
  searchAll: keysOf<SearchAllOptions>({ maxPages: true, maxResources: true, signal: true }),
});

/**
 * Validates and copies the paging options once; misuse is a `TypeError`/`RangeError` naming the option.
 * `method` (`pages` or `searchAll`) says which keys it takes. With `allowSignal: false` (the sync gateway, whose calls cannot be aborted) a `signal` is a `TypeError`.
 */
export function checkPagingOptions(options: SearchAllOptions | undefined, method: keyof typeof PAGING_OPTION_KEYS, allowSignal = true): PagingLimits {
  if (options === undefined) return { maxPages: Infinity, maxResources: Infinity, signal: undefined };
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  onlyKnownKeys(options, PAGING_OPTION_KEYS[method], 'options');
  const { signal } = options;
  if (signal !== undefined && !allowSignal) throw new TypeError('options.signal: FHIRGateway calls block and cannot be aborted; use AsyncFHIRGateway');
  signalOption(signal, 'options.signal');
  return Object.freeze({ maxPages: numberOption(options.maxPages, 'options.maxPages', Infinity, { integer: true, min: 1 }), maxResources: numberOption(options.maxResources, 'options.maxResources', Infinity, { integer: true, min: 1 }), signal });
}

/**
 * The URL of the page after `page`, exactly as the server gave it in `Bundle.link[relation=next]`
 * (a relative link is resolved against the base), or `undefined` on the last page. A link that is not
 * a URL, or one already in `seen` (a loop), is `ERR_PAGINATION`; a link to another origin than the
 * source's is `ERR_CROSS_ORIGIN` (it is never followed, so no token goes there). Adds the URL to `seen`.
 */
export function nextPageUrl(
  page: Bundle,
  source: { readonly baseUrl: string; readonly origin: string; readonly name: string },
  seen: Set<string>,
  what: string,
): URL | undefined {
  const links = Array.isArray(page.link) ? page.link : [];
  const link: unknown = links.find((l) => l?.relation === 'next')?.url;
  if (link === undefined) return undefined;
  let url: URL;
  try {
    if (typeof link !== 'string' || link === '') throw new TypeError('not a string');
    url = new URL(link, `${source.baseUrl}/`);
  } catch (cause) {
    throw new FhirgateError('ERR_PAGINATION', `search ${what}: the next link of page ${seen.size} is not a URL`, { cause });
  }
  if (url.origin !== source.origin) {
    throw new FhirgateError('ERR_CROSS_ORIGIN', `search ${what}: the next link of page ${seen.size} points to ${url.origin}, not to the origin of source "${source.name}"; it was not followed`);
  }
  if (seen.has(url.href)) {
    throw new FhirgateError('ERR_PAGINATION', `search ${what}: the next link of page ${seen.size} repeats an earlier page (${url.pathname}); paging stopped`);
  }
  seen.add(url.href);
  return url;
}

/**
 * True for an entry a search matched: `search.mode` `match`, or no mode at all (not `include`, not
 * `outcome`).
 */
export function isMatch(entry: BundleEntry | undefined): boolean {
  const mode = entry?.search?.mode;
  return mode === undefined || mode === 'match';
}

/** The resources a searchset page matched (see {@link isMatch}); entries without a resource are skipped. */
export function matchingResources<T extends Resource>(page: Bundle<T>): T[] {
  const entries = Array.isArray(page.entry) ? page.entry : [];
  return entries.filter((e) => e?.resource !== undefined && isMatch(e)).map((e) => e.resource as T);
}
