/**
 * The `$everything` parts of the feature-equal Fastify anchor (facade-fastify.ts) that hold no request:
 * the patient's resolution by identifier across the sources (cached for a TTL), the merge of the
 * sources' pages with `_count` and a signed page token, and the `seealso` links between the patient's
 * records, written as a Fastify user would write them, under the same rules as fhirgate's
 * src/facade/patient-everything.ts and src/gateway/identity/.
 */
import * as crypto from 'node:crypto';

/** One source's part of a resolution, as the facade's resolver reports it. */
export type Outcome = { source: string; status: 'found'; id: string } | { source: string; status: 'absent' | 'ambiguous' | 'failed'; reason: string };

/** A resolution: the identifiers it went by and each source's outcome. */
export interface Resolution {
  identifiers: string[];
  outcomes: Outcome[];
  cached: boolean;
}

/** What the resolver asks of a source: a GET of `path` under its base (`undefined` body: not FHIR JSON; status as answered). */
export type Get = (source: string, path: string) => Promise<{ status: number; body: Record<string, unknown> | undefined }>;

/** The patient named by `query` (a source's local id, or `system|value`) found in each of `sources`: its record read, its identifiers of `systems` searched in the others. */
export class Resolver {
  readonly #cache = new Map<string, { until: number; identifiers: string[]; outcomes: Outcome[] }>();
  readonly #systems: readonly string[];
  readonly #ttlMs: number;

  constructor(systems: readonly string[], ttlSeconds: number) {
    this.#systems = systems;
    this.#ttlMs = ttlSeconds * 1000;
  }

  /** Resolves (or answers from the cache) `query` in `sources`; a read or search that fails makes that source `failed` (and the answer uncached). */
  async resolve(query: { source: string; id: string } | { identifier: string }, sources: readonly string[], get: Get): Promise<Resolution> {
    const key = crypto.createHash('sha256').update(JSON.stringify([query, sources, this.#systems])).digest('base64url');
    const hit = this.#cache.get(key);
    if (hit !== undefined && hit.until > Date.now()) return { identifiers: hit.identifiers, outcomes: hit.outcomes, cached: true };
    let identifiers: string[];
    let origin: Outcome | undefined;
    if ('identifier' in query) identifiers = [query.identifier];
    else [origin, identifiers] = await this.#origin(query.source, query.id, get);
    const outcomes = await Promise.all(sources.map(async (source): Promise<Outcome> => {
      if (origin !== undefined && source === origin.source) return origin;
      if (origin !== undefined && origin.status !== 'found') return { source, status: 'absent', reason: `not asked: ${JSON.stringify(origin.source)} holds no such patient` };
      if (identifiers.length === 0) return { source, status: 'absent', reason: 'not asked: the patient has no identifier this source is believed for' };
      try {
        const ids = new Set<string>();
        for (const identifier of identifiers) for (const id of await this.#carriers(source, identifier, get)) ids.add(id);
        if (ids.size === 0) return { source, status: 'absent', reason: 'no record carries the identifiers' };
        if (ids.size > 1) return { source, status: 'ambiguous', reason: `${ids.size} records carry the identifiers` };
        return { source, status: 'found', id: [...ids][0]! };
      } catch {
        return { source, status: 'failed', reason: 'the search by identifier failed' };
      }
    }));
    if (this.#ttlMs > 0 && !outcomes.some((o) => o.status === 'failed')) {
      if (this.#cache.size >= 10_000) this.#cache.clear();
      this.#cache.set(key, { until: Date.now() + this.#ttlMs, identifiers, outcomes });
    }
    return { identifiers, outcomes, cached: false };
  }

  /** The record at its own source, and its identifiers of the configured systems. */
  async #origin(source: string, id: string, get: Get): Promise<[Outcome, string[]]> {
    try {
      const { status, body } = await get(source, `Patient/${encodeURIComponent(id)}`);
      if (status === 404 || status === 410) return [{ source, status: 'absent', reason: `the source holds no Patient/${id}` }, []];
      if (status !== 200 || body?.resourceType !== 'Patient') return [{ source, status: 'failed', reason: `the read answered ${status}` }, []];
      const identifiers = (Array.isArray(body.identifier) ? (body.identifier as { system?: unknown; value?: unknown }[]) : [])
        .filter((i) => typeof i.system === 'string' && typeof i.value === 'string' && this.#systems.includes(i.system))
        .map((i) => `${String(i.system)}|${String(i.value)}`);
      return [{ source, status: 'found', id }, identifiers];
    } catch {
      return [{ source, status: 'failed', reason: 'the read failed' }, []];
    }
  }

  /** The ids of the Patients at `source` that carry `identifier` (`system|value`). */
  async #carriers(source: string, identifier: string, get: Get): Promise<string[]> {
    const { status, body } = await get(source, `Patient?${new URLSearchParams({ identifier, _count: '50' })}`);
    if (status !== 200 || body?.resourceType !== 'Bundle') throw new Error(`the search answered ${status}`);
    const bar = identifier.indexOf('|');
    const [system, value] = [identifier.slice(0, bar), identifier.slice(bar + 1)];
    const entries = Array.isArray(body.entry) ? (body.entry as { resource?: Record<string, unknown>; search?: { mode?: unknown } }[]) : [];
    return entries
      .filter((e) => (e.search?.mode ?? 'match') === 'match' && e.resource?.resourceType === 'Patient' && typeof e.resource.id === 'string')
      .filter((e) => (e.resource!.identifier as { system?: unknown; value?: unknown }[] | undefined)?.some((i) => i.system === system && i.value === value) === true)
      .map((e) => e.resource!.id as string);
  }
}

/** Where a source's stream stands: the link to fetch (`''`: its `$everything`; `null`: done) and the entries of it already given. */
export interface Position {
  source: string;
  link: string | null;
  skip: number;
}

/** A page token's content. */
export interface PageState {
  caller: string;
  query: { source: string; id: string } | { identifier: string };
  patients: Record<string, string>;
  params: string;
  count: number | undefined;
  positions: Position[];
}

/** Signs and opens page tokens (HMAC-SHA-256 with a key of this process). */
export class PageTokens {
  readonly #key = crypto.randomBytes(32);

  sign(state: PageState): string {
    const body = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${body}.${crypto.createHmac('sha256', this.#key).update(body).digest('base64url')}`;
  }

  /** The state of `token`, `undefined` when it is not one of ours. */
  open(token: string): PageState | undefined {
    const [body, mac] = token.split('.');
    if (body === undefined || mac === undefined) return undefined;
    const expected = crypto.createHmac('sha256', this.#key).update(body).digest();
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return undefined;
    return JSON.parse(Buffer.from(body, 'base64url').toString()) as PageState;
  }
}

/** One source's fetched page: its entries (federated), the link it came from, its upstream `next` link. */
export interface SourcePage {
  source: string;
  entries: Record<string, unknown>[];
  pageLink: string;
  nextLink: string | null;
  skipped: number;
}

/** The sources' pages one after the other, at most `count` entries, and where each stream stands after them. */
export function mergePages(pages: readonly SourcePage[], count: number | undefined): { entries: Record<string, unknown>[]; positions: Position[] } {
  const limit = count ?? Number.POSITIVE_INFINITY;
  const entries: Record<string, unknown>[] = [];
  const positions = pages.map((p) => {
    const taken = Math.max(0, Math.min(p.entries.length, limit - entries.length));
    entries.push(...p.entries.slice(0, taken));
    return taken < p.entries.length ? { source: p.source, link: p.pageLink, skip: p.skipped + taken } : { source: p.source, link: p.nextLink, skip: 0 };
  });
  return { entries, positions };
}

/** `entries` without a second entry of the same `fullUrl`. */
export function once(entries: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const seen = new Set<string>();
  return entries.filter((e) => typeof e.fullUrl !== 'string' || (!seen.has(e.fullUrl) && seen.add(e.fullUrl) !== undefined));
}

/**
 * Links each source's record of the patient (in `entries`, told by its `meta.source` and id) to the other
 * sources' records of `patients` (`Patient.link`, type `seealso`, `reference(source, id)`), in place.
 */
export function linkRecords(entries: readonly Record<string, unknown>[], patients: Record<string, string>, sourceBase: (source: string) => string, shownId: (source: string, id: string) => string, reference: (source: string, id: string) => string): void {
  const records = Object.entries(patients).map(([source, id]) => ({ base: sourceBase(source), id: shownId(source, id), reference: reference(source, id) }));
  if (records.length < 2) return;
  for (const { resource } of entries as { resource?: { resourceType?: unknown; id?: unknown; meta?: { source?: unknown }; link?: { other?: { reference?: unknown } }[] } }[]) {
    if (resource?.resourceType !== 'Patient') continue;
    const self = records.find((r) => r.base === resource.meta?.source && r.id === resource.id);
    if (self === undefined) continue;
    const links = Array.isArray(resource.link) ? resource.link : [];
    const known = new Set(links.map((l) => l.other?.reference));
    const added = records.filter((r) => r !== self && !known.has(r.reference)).map((r) => ({ other: { reference: r.reference }, type: 'seealso' }));
    if (added.length > 0) resource.link = [...links, ...added];
  }
}
