/**
 * Merging the pages of several sources into one: by `_sort` when every source's page is in that
 * order (checked, not assumed), else source by source in the order the sources were asked, each as it
 * returned its entries. `_count` cuts the merged page; what each source gave beyond it is remembered
 * as a position (its page link, and how many entries of that page were used).
 * @module
 */

/** One source's page, as the merge sees it. */
export interface SourcePage {
  readonly source: string;
  /** The type of the stream, when a source gives several (`$everything`'s compartment searches). */
  readonly type?: string;
  /** Match and include entries, already rewritten for the facade. */
  readonly entries: readonly Record<string, unknown>[];
  /** The link this page was fetched from (to come back to it), and the source's next link. */
  readonly pageLink: string;
  readonly nextLink: string | null;
  /** Entries of this page already sent on an earlier merged page. */
  readonly skipped: number;
}

/** The merged entries and each source's position after them. */
export interface Merged {
  readonly entries: Record<string, unknown>[];
  readonly positions: { source: string; type?: string; link: string | null; skip: number }[];
  /** True when the entries were merged by `_sort`. */
  readonly sorted: boolean;
}

/** Element paths of common sort parameters, tried in order (a `Map`: a `_sort` key is the caller's text, never a prototype's). */
const SORT_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['_lastUpdated', ['meta.lastUpdated']],
  ['_id', ['id']],
  ['date', ['effectiveDateTime', 'date', 'issued', 'recordedDate', 'authoredOn', 'period.start', 'onsetDateTime']],
  ['birthdate', ['birthDate']],
  ['family', ['name.family']],
  ['name', ['name.family']],
  ['given', ['name.given']],
  ['status', ['status']],
]);

/** The sort value of an entry's resource for `param` (first element of the first path that has one); only own elements are read. */
function sortValue(entry: Record<string, unknown>, param: string): string {
  const paths = SORT_PATHS.get(param) ?? [param];
  for (const path of paths) {
    let value: unknown = entry.resource;
    for (const step of path.split('.')) {
      value = Array.isArray(value) ? value[0] : value;
      value = typeof value === 'object' && value !== null && Object.hasOwn(value, step) ? (value as Record<string, unknown>)[step] : undefined;
    }
    value = Array.isArray(value) ? value[0] : value;
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return '';
}

/** Merges source pages into one page of at most `count` entries (all of them without `count`). */
export function mergePages(pages: readonly SourcePage[], count: number | undefined, sort: string | undefined): Merged {
  const key = sort?.split(',')[0]?.trim();
  const descending = key?.startsWith('-') === true;
  const param = key?.replace(/^-/, '');
  const compare = (a: Record<string, unknown>, b: Record<string, unknown>) => {
    const x = sortValue(a, param!);
    const y = sortValue(b, param!);
    return (x < y ? -1 : x > y ? 1 : 0) * (descending ? -1 : 1);
  };
  const sorted = param !== undefined && param !== '' && pages.every((p) => p.entries.every((e, i) => i === 0 || compare(p.entries[i - 1]!, e) <= 0));
  const cursors = pages.map(() => 0);
  const entries: Record<string, unknown>[] = [];
  const limit = count ?? Number.POSITIVE_INFINITY;
  if (sorted) {
    while (entries.length < limit) {
      let best = -1;
      pages.forEach((p, i) => {
        const e = p.entries[cursors[i]!];
        if (e !== undefined && (best < 0 || compare(e, pages[best]!.entries[cursors[best]!]!) < 0)) best = i;
      });
      if (best < 0) break;
      entries.push(pages[best]!.entries[cursors[best]!++]!);
    }
  } else {
    pages.forEach((p, i) => {
      while (entries.length < limit && cursors[i]! < p.entries.length) entries.push(p.entries[cursors[i]!++]!);
    });
  }
  const positions = pages.map((p, i) => {
    const at = cursors[i]! < p.entries.length ? { link: p.pageLink, skip: p.skipped + cursors[i]! } : { link: p.nextLink, skip: 0 };
    return p.type === undefined ? { source: p.source, ...at } : { source: p.source, type: p.type, ...at };
  });
  return { entries, positions, sorted };
}
