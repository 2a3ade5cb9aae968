/**
 * Building a `searchset` Bundle from resources.
 * @module
 */
import type { Bundle, BundleEntry, BundleLink, Resource } from './generated/resources.js';

/** Options of {@link searchsetBundle}. */
export interface SearchsetBundleOptions {
  /**
   * `Bundle.total`: how many resources match the search in all, a non-negative integer. Default: the
   * number of resources given that are not OperationOutcomes. Pass it when the resources are one page.
   */
  total?: number;
  /** `Bundle.link`, in order, e.g. `[{ relation: 'self', url }, { relation: 'next', url }]`. Default: none. */
  links?: readonly { readonly relation: string; readonly url: string }[];
  /**
   * The FHIR base URL (`https://fhir.example.org/R4`) from which each entry's `fullUrl` is made as
   * `<baseUrl>/<type>/<id>` (for resources with an id). Default: entries have no `fullUrl`.
   */
  baseUrl?: string;
}

function checkOptions(options: SearchsetBundleOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('searchsetBundle: options must be an object');
  const { total, links, baseUrl } = options;
  if (total !== undefined && (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0)) {
    throw new RangeError('searchsetBundle: options.total must be a non-negative integer');
  }
  if (links !== undefined && !Array.isArray(links)) throw new TypeError('searchsetBundle: options.links must be an array');
  links?.forEach((l, i) => {
    if (typeof l?.relation !== 'string' || typeof l.url !== 'string') {
      throw new TypeError(`searchsetBundle: options.links[${i}] must be { relation: string, url: string }`);
    }
  });
  if (baseUrl !== undefined && typeof baseUrl !== 'string') throw new TypeError('searchsetBundle: options.baseUrl must be a string');
}

/**
 * A Bundle of type `searchset` holding `resources` in order. Each entry has `search.mode` `match`, or
 * `outcome` for an OperationOutcome (how servers attach warnings to a search). The resources are put in
 * as they are, not copied. Empty `entry` and `link` arrays are left out, as FHIR JSON requires.
 *
 * @throws TypeError when `resources` is not an array of objects with a string `resourceType`, or an
 * option has the wrong type; RangeError when `total` is not a non-negative integer.
 * @example
 * ```ts
 * const base = 'https://gw.example.org/fhir';
 * const page = searchsetBundle([patient], {
 *   total: 42,
 *   links: [{ relation: 'self', url: `${base}/Patient?_count=10` }, { relation: 'next', url: `${base}/Patient?_count=10&page=2` }],
 *   baseUrl: base,
 * });
 * page.entry?.[0]?.resource;   // a Patient
 * ```
 */
export function searchsetBundle<T extends Resource>(resources: readonly T[], options: SearchsetBundleOptions = {}): Bundle<T> {
  if (!Array.isArray(resources)) throw new TypeError('searchsetBundle: "resources" must be an array');
  checkOptions(options);
  const base = options.baseUrl?.replace(/\/+$/, '');
  let matches = 0;
  const entry = resources.map((resource: T, i): BundleEntry<T> => {
    if (typeof resource !== 'object' || resource === null || typeof resource.resourceType !== 'string') {
      throw new TypeError(`searchsetBundle: "resources[${i}]" is not a FHIR resource`);
    }
    const outcome = resource.resourceType === 'OperationOutcome';
    if (!outcome) matches += 1;
    const fullUrl = base !== undefined && typeof resource.id === 'string' ? `${base}/${resource.resourceType}/${resource.id}` : undefined;
    return { ...(fullUrl === undefined ? {} : { fullUrl }), resource, search: { mode: outcome ? 'outcome' : 'match' } };
  });
  const link: BundleLink[] = (options.links ?? []).map(({ relation, url }) => ({ relation, url }));
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    total: options.total ?? matches,
    ...(link.length === 0 ? {} : { link }),
    ...(entry.length === 0 ? {} : { entry }),
  };
}
