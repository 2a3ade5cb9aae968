/**
 * URL rewriting by structure, never by string replacement over a body (what broke both open
 * gateways): a URL is parsed, and rewritten only when it lies under the upstream base, and only in the
 * elements that carry URLs (`reference`, `fullUrl`, `location`, `url`). Free text (OperationOutcome
 * diagnostics) has no structure: there the upstream base is redacted.
 * @module
 */

/** The keys whose string values may be absolute URLs into a FHIR base. */
const URL_KEYS: ReadonlySet<string> = new Set(['reference', 'fullUrl', 'location', 'url']);

/** A base as {@link move} compares against it: its origin and its path without a trailing slash. */
interface ParsedBase {
  readonly origin: string;
  readonly path: string;
}

function parsedBase(base: string): ParsedBase {
  const url = new URL(base);
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
}

/** Maps URLs between an upstream FHIR base and the facade's base for it. */
export class BaseRewriter {
  readonly #upstream: ParsedBase;
  readonly #facade: ParsedBase;
  readonly upstreamBase: string;
  readonly facadeBase: string;
  /** Both bases, as a compartment check takes them (a reference may be absolute under either). */
  readonly bases: readonly string[];
  // Made once: a closure per answer was a visible share of the facade read's allocations.
  readonly #toFacadeOrSame = (url: string): string => this.toFacade(url) ?? url;
  readonly #toUpstreamOrSame = (url: string): string => this.toUpstream(url) ?? url;

  /** Both bases without a trailing slash. */
  constructor(upstreamBase: string, facadeBase: string) {
    this.#upstream = parsedBase(upstreamBase);
    this.#facade = parsedBase(facadeBase);
    this.upstreamBase = upstreamBase.replace(/\/+$/, '');
    this.facadeBase = facadeBase.replace(/\/+$/, '');
    this.bases = Object.freeze([this.upstreamBase, this.facadeBase]);
  }

  /**
   * `url` moved from the upstream base to the facade's; `undefined` when it is absolute and not under
   * the upstream base; a relative URL as it is.
   */
  toFacade(url: string): string | undefined {
    return move(url, this.#upstream, this.facadeBase);
  }

  /** The reverse of {@link toFacade}, for request bodies: absolute URLs under the facade's base point upstream. */
  toUpstream(url: string): string | undefined {
    return move(url, this.#facade, this.upstreamBase);
  }

  /** A copy of a JSON value with every URL element under the upstream base moved to the facade's; OperationOutcome text redacted. */
  resourceToFacade<T>(value: T): T {
    return walk(value, this.#toFacadeOrSame, this.upstreamBase, this.facadeBase) as T;
  }

  /** A copy of a request body with every URL element under the facade's base moved upstream. */
  resourceToUpstream<T>(value: T): T {
    return walk(value, this.#toUpstreamOrSame, undefined, '') as T;
  }
}

function move(url: string, from: ParsedBase, to: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  if (!URL.canParse(url)) return undefined;
  const u = new URL(url);
  if (u.origin !== from.origin) return undefined;
  if (u.pathname !== from.path && !u.pathname.startsWith(`${from.path}/`)) return undefined;
  return `${to}${u.pathname.slice(from.path.length)}${u.search}${u.hash}`;
}

/**
 * A copy of `value` with its URL elements mapped; `value` itself when nothing changed (so an answer with
 * nothing to rewrite is sent as it came). Allocates nothing until something changes: the
 * `Object.entries` and `map` of every object and array were the largest share of the facade read's
 * garbage (`--heap-prof` sampling, 4 KB of 57 KB per read).
 */
function walk(value: unknown, map: (url: string) => string, redact: string | undefined, replacement: string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const next = walk(v, map, redact, replacement);
      if (next !== v) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  const outcome = redact !== undefined && record.resourceType === 'OperationOutcome';
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const v = record[key];
    let next: unknown;
    if (typeof v === 'string') {
      if (!URL_KEYS.has(key)) continue;
      next = map(v);
    } else if (typeof v !== 'object' || v === null) continue;
    else next = walk(outcome && key === 'issue' ? redactIssues(v, redact, replacement) : v, map, redact, replacement);
    if (next !== v) (out ??= { ...record })[key] = next;
  }
  return out ?? value;
}

/** Issues whose `diagnostics` and `details.text` name the facade's base where they named the upstream's. */
function redactIssues(issues: unknown, upstream: string, facade: string): unknown {
  if (!Array.isArray(issues) || !JSON.stringify(issues).includes(upstream)) return issues;
  const clean = (text: unknown) => (typeof text === 'string' ? text.split(upstream).join(facade) : text);
  return issues.map((issue) => {
    if (typeof issue !== 'object' || issue === null) return issue;
    const i = issue as Record<string, unknown>;
    const details = typeof i.details === 'object' && i.details !== null ? { ...(i.details as Record<string, unknown>), text: clean((i.details as Record<string, unknown>).text) } : i.details;
    return { ...i, ...(i.diagnostics === undefined ? {} : { diagnostics: clean(i.diagnostics) }), ...(details === undefined ? {} : { details }) };
  });
}
