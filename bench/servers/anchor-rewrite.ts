/**
 * The URL work of the feature-equal Fastify anchor (facade-fastify.ts), written as a Fastify user would
 * write it, under the same rule as fhirgate's facade (src/facade/url-rewrite.ts): when the answer's text
 * mentions the upstream's address at all, every string and member name is looked at: a URL under the
 * upstream base moves to the facade's base, the base elsewhere in a text is replaced, any other mention
 * of the upstream's `host:port` (as written or percent-encoded) becomes `upstream.invalid`; Bundle links
 * not under the base are dropped; and the federated view of a source's entry (ids `<source>.<id>`, relative references qualified
 * the same way, `meta.source`, `fullUrl` at the federated base, an `alternate` link to the source's base).
 * The parsed answer is the anchor's own, so it is changed in place.
 */

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;
const RELATIVE = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(\/_history\/[A-Za-z0-9\-.]{1,64})?$/;
const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

/** What a mention of the upstream's address outside its base becomes (as the facade writes it). */
const REDACTED_HOST = 'upstream.invalid';
const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Moves URLs from one FHIR base to another, and keeps the upstream's address out of every other text. */
export class Rebase {
  readonly #origin: string;
  readonly #path: string;
  readonly #from: string;
  readonly #to: string;
  /** The upstream's `host:port`, as written or percent-encoded. */
  readonly #address: RegExp;
  readonly #addressAll: RegExp;

  /** `from` and `to` absolute, without a trailing slash. */
  constructor(from: string, to: string) {
    const url = new URL(from);
    this.#origin = url.origin;
    this.#path = url.pathname;
    this.#from = from;
    this.#to = to;
    const address = `${escaped(url.host)}|${escaped(encodeURIComponent(url.host))}`;
    this.#address = new RegExp(address, 'i');
    this.#addressAll = new RegExp(address, 'gi');
  }

  /** `url` at the new base; a relative URL as it is; `undefined` when absolute elsewhere. */
  move(url: string): string | undefined {
    if (!ABSOLUTE.test(url)) return url;
    if (!URL.canParse(url)) return undefined;
    const u = new URL(url);
    if (u.origin !== this.#origin || (u.pathname !== this.#path && !u.pathname.startsWith(`${this.#path}/`))) return undefined;
    return `${this.#to}${u.pathname.slice(this.#path.length)}${u.search}${u.hash}`;
  }

  /** False when `text` (an answer as received) cannot mention the upstream's address: nothing to rewrite. */
  mayHold(text: string): boolean {
    return this.#address.test(text);
  }

  /** Any text of an answer (an element, a member name, a header): a URL under the base moved, the base elsewhere replaced, any other mention of the address redacted. */
  text(value: string): string {
    if (!this.#address.test(value)) return value;
    const moved = ABSOLUTE.test(value) ? this.move(value) : undefined;
    if (moved !== undefined && !this.#address.test(moved)) return moved;
    return (moved ?? value).split(this.#from).join(this.#to).split(encodeURIComponent(this.#from)).join(encodeURIComponent(this.#to)).replace(this.#addressAll, REDACTED_HOST);
  }

  /** Rewrites `value` in place (every string and member name, by {@link text}); true when anything changed. */
  rewrite(value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    let changed = false;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        if (typeof v === 'string') {
          const next = this.text(v);
          if (next !== v) [value[i], changed] = [next, true];
        } else changed = this.rewrite(v) || changed;
      }
      return changed;
    }
    const record = value as Record<string, unknown>;
    if (record.resourceType === 'Bundle' && Array.isArray(record.link)) {
      const kept = (record.link as { url?: unknown }[]).filter((l) => typeof l.url !== 'string' || this.move(l.url) !== undefined);
      if (kept.length !== record.link.length) [record.link, changed] = [kept, true];
    }
    for (const key of Object.keys(record)) {
      const v = record[key];
      if (typeof v === 'string') {
        const next = this.text(v);
        if (next !== v) [record[key], changed] = [next, true];
      } else if (typeof v === 'object' && v !== null) changed = this.rewrite(v) || changed;
      const name = this.text(key);
      if (name !== key) {
        Object.defineProperty(record, name, { value: record[key], writable: true, enumerable: true, configurable: true });
        delete record[key];
        changed = true;
      }
    }
    return changed;
  }
}

/** The federated id of `id` in `source` (`ehr.123`), or `undefined` when it would not be a FHIR id or would read back as another source's. */
export function federatedId(source: string, id: string, sources: readonly string[]): string | undefined {
  const federated = `${source}.${id}`;
  if (!FHIR_ID.test(federated) || source.includes('_')) return undefined;
  const longer = sources.some((s) => s !== source && s.length > source.length && federated.startsWith(`${s}.`));
  return longer ? undefined : federated;
}

/** A search value naming a federated id (`Patient/ehr.1`; a bare `ehr.1` when `bare`), as `source` has it: its own form, `null` when it names another source, the value itself otherwise. */
function localValue(value: string, bare: boolean, source: string, sources: readonly string[]): string | null {
  const slash = value.indexOf('/');
  if (slash < 0 && !bare) return value;
  const id = slash < 0 ? value : value.slice(slash + 1);
  const named = sources.filter((s) => id.startsWith(`${s}.`) && FHIR_ID.test(id.slice(s.length + 1))).sort((a, b) => b.length - a.length)[0];
  if (named === undefined) return value;
  if (named !== source) return null;
  return `${slash < 0 ? '' : value.slice(0, slash + 1)}${id.slice(named.length + 1)}`;
}

/** The federated search's query as `source` gets it (federated ids made its own); `undefined` when a parameter keeps no value there. */
export function sourceQuery(query: URLSearchParams, source: string, sources: readonly string[]): URLSearchParams | undefined {
  const out = new URLSearchParams();
  for (const [name, value] of query) {
    const [param, modifier] = name.split(':');
    const bare = (param === '_id' && modifier === undefined) || (modifier !== undefined && /^[A-Z]/.test(modifier));
    if (modifier !== undefined && !bare) {
      out.append(name, value);
      continue;
    }
    const kept = value.split(/(?<!\\),/).map((v) => localValue(v, bare, source, sources)).filter((v) => v !== null);
    if (kept.length === 0) return undefined;
    out.append(name, kept.join(','));
  }
  return out;
}

/** Relative references under `value` federated in place (or made absolute at `sourceBase`). */
function qualify(value: unknown, source: string, sourceBase: string, sources: readonly string[]): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const v of value) qualify(v, source, sourceBase, sources);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const v = record[key];
    if (key === 'reference' && typeof v === 'string') {
      const m = RELATIVE.exec(v);
      if (m === null) continue;
      const id = federatedId(source, m[2]!, sources);
      record[key] = id === undefined ? `${sourceBase}/${v}` : `${m[1]}/${id}${m[3] ?? ''}`;
    } else qualify(v, source, sourceBase, sources);
  }
}

/** A search entry of `source` as the federated base shows it (changed in place and returned). */
export function federatedEntry(entry: Record<string, unknown>, source: string, sourceBase: string, federatedBase: string, sources: readonly string[]): Record<string, unknown> {
  const resource = entry.resource as Record<string, unknown> | undefined;
  if (resource === undefined) return entry;
  const ownId = resource.id;
  qualify(resource, source, sourceBase, sources);
  const id = typeof ownId === 'string' ? federatedId(source, ownId, sources) : undefined;
  if (id !== undefined) resource.id = id;
  resource.meta = { ...(typeof resource.meta === 'object' && resource.meta !== null ? resource.meta : {}), source: sourceBase };
  if (typeof ownId !== 'string') return entry;
  const atSource = `${sourceBase}/${String(resource.resourceType)}/${ownId}`;
  entry.fullUrl = id === undefined ? atSource : `${federatedBase}/${String(resource.resourceType)}/${id}`;
  entry.link = [...(Array.isArray(entry.link) ? entry.link : []), { relation: 'alternate', url: atSource }];
  return entry;
}
