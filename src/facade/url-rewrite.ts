/**
 * URL rewriting by structure, never by string replacement over a body (what broke both open
 * gateways): a URL is parsed, and rewritten only when it lies under the upstream base, and only in the
 * elements that carry URLs (`reference`, `fullUrl`, `location`, `url`). Free text (OperationOutcome
 * diagnostics) has no structure: there the upstream base is redacted.
 * @module
 */

/** The keys whose string values may be absolute URLs into a FHIR base. */
const URL_KEYS: ReadonlySet<string> = new Set(['reference', 'fullUrl', 'location', 'url']);

/** Maps URLs between an upstream FHIR base and the facade's base for it. */
export class BaseRewriter {
  readonly #upstream: URL;
  readonly #facade: URL;
  readonly upstreamBase: string;
  readonly facadeBase: string;

  /** Both bases without a trailing slash. */
  constructor(upstreamBase: string, facadeBase: string) {
    this.#upstream = new URL(upstreamBase);
    this.#facade = new URL(facadeBase);
    this.upstreamBase = upstreamBase.replace(/\/+$/, '');
    this.facadeBase = facadeBase.replace(/\/+$/, '');
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
    return walk(value, (url) => this.toFacade(url) ?? url, this.upstreamBase, this.facadeBase) as T;
  }

  /** A copy of a request body with every URL element under the facade's base moved upstream. */
  resourceToUpstream<T>(value: T): T {
    return walk(value, (url) => this.toUpstream(url) ?? url, undefined, '') as T;
  }
}

function move(url: string, fromParsed: URL, to: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  if (!URL.canParse(url)) return undefined;
  const u = new URL(url);
  const basePath = fromParsed.pathname.replace(/\/+$/, '');
  if (u.origin !== fromParsed.origin) return undefined;
  if (u.pathname !== basePath && !u.pathname.startsWith(`${basePath}/`)) return undefined;
  return `${to}${u.pathname.slice(basePath.length)}${u.search}${u.hash}`;
}

/** A copy of `value` with its URL elements mapped; `value` itself when nothing changed (so an answer with nothing to rewrite is sent as it came). */
function walk(value: unknown, map: (url: string) => string, redact: string | undefined, replacement: string): unknown {
  if (Array.isArray(value)) {
    const out = value.map((v) => walk(v, map, redact, replacement));
    return out.some((v, i) => v !== value[i]) ? out : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  let out: Record<string, unknown> | undefined;
  const outcome = (value as { resourceType?: unknown }).resourceType === 'OperationOutcome';
  for (const [key, v] of Object.entries(value)) {
    let next: unknown;
    if (typeof v === 'string') next = URL_KEYS.has(key) ? map(v) : v;
    else if (outcome && key === 'issue' && redact !== undefined) next = walk(redactIssues(v, redact, replacement), map, redact, replacement);
    else next = walk(v, map, redact, replacement);
    if (next !== v) out ??= { ...(value as Record<string, unknown>) };
    if (out !== undefined) out[key] = next;
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
