/**
 * The pages and the matches of a search, for `AsyncFHIRGateway.pages`/`searchAll`: each page is one
 * public call of the gateway (closed check, signal, in-flight tracking), the next one only on demand.
 * @module
 */
import type { Bundle, Resource, ResourceType } from '../fhir/index.js';
import type { GatewayEngine } from './core/engine.js';
import { searchUrl } from './core/search-params.js';
import type { SearchParams } from './core/search-params.js';
import { matchingResources, nextPageUrl } from './core/paging.js';
import type { PagingLimits } from './core/paging.js';
import { checkType } from './core/resource-path.js';

/**
 * The pages of a search: the first page, then each `next` link (on the source's origin only, never
 * twice), at most `limits.maxPages`. Nothing is checked or sent until the first `next()`.
 */
export async function* searchPages(engine: GatewayEngine, type: ResourceType, params: SearchParams, source: string | undefined, limits: PagingLimits): AsyncGenerator<Bundle> {
  const t = checkType(type);
  const src = engine.sources.get(source);
  let url = searchUrl(src, t, params);
  const seen = new Set([url.href]);
  const options = limits.signal === undefined ? {} : { signal: limits.signal };
  for (let page = 1; ; page++) {
    const bundle = await engine.searchPage(src, t, url, page, options);
    yield bundle;
    const next = page < limits.maxPages ? nextPageUrl(bundle, src, seen, t) : undefined;
    if (next === undefined) return;
    url = next;
  }
}

/**
 * The resources `pages` matched (see `matchingResources`), at most `maxResources`: no page is fetched
 * past them.
 */
export async function* searchMatches(pages: AsyncIterable<Bundle>, maxResources: number): AsyncGenerator<Resource> {
  let count = 0;
  for await (const page of pages) {
    for (const resource of matchingResources(page)) {
      yield resource;
      if (++count >= maxResources) return;
    }
  }
}
