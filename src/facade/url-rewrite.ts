/**
 * How the facade keeps the upstream's address out of its answers, by one rule for every string of every
 * answer (any element of any resource, whatever base or route produced it: pass-through, operation,
 * error, capabilities), and for the headers that come back:
 *
 * 1. a URL under the upstream base (`reference`, `fullUrl`, `meta.source`, `coding.system`, …) moves to
 *    the facade's base, parsed, never by string replacement (what broke both open gateways);
 * 2. in any other text (`diagnostics`, `expression`, the narrative, `software.name`, `valueString`, …) the
 *    upstream base, as written or percent-encoded, becomes the facade's base, and any other mention of the
 *    upstream's address (`host:port`, as written or percent-encoded) becomes {@link REDACTED_HOST};
 * 3. a text that still holds the address once its encodings are undone (`%31%32…`, `&#49;…`, `\u0031…`)
 *    is replaced whole by {@link REDACTED_TEXT} (in a narrative, a `div` saying so).
 *
 * Request bodies go the other way by structure only: URL elements under the facade's base move upstream.
 * @module
 */
import { decodedForms } from '../lib/credential-echo.js';
import { holdsDotSegment } from '../lib/dot-segment.js';

/** The keys whose string values may be absolute URLs into a FHIR base (request bodies: see {@link BaseRewriter.resourceToUpstream}). */
const URL_KEYS: ReadonlySet<string> = new Set(['reference', 'fullUrl', 'location', 'url']);

/** What a mention of the upstream's address (not under its base) becomes: a host that never resolves (RFC 2606). */
export const REDACTED_HOST = 'upstream.invalid';

/** What a text that hides the upstream's address in an encoding becomes. */
export const REDACTED_TEXT = '[redacted: held the address of an upstream server]';

const XHTML_REDACTED = `<div xmlns="http://www.w3.org/1999/xhtml">${REDACTED_TEXT}</div>`;

/** A base as {@link move} compares against it: its origin and its path without a trailing slash, and both as the URL parser writes them. */
interface ParsedBase {
  readonly origin: string;
  readonly path: string;
  readonly prefix: string;
}

function parsedBase(base: string): ParsedBase {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, path, prefix: `${url.origin}${path}` };
}

/** A path and query the URL parser keeps as written: nothing it would percent-encode, no backslash, no fragment. */
const KEPT_AS_WRITTEN = /^[A-Za-z0-9\-._~/?=&%:@!$()*+,;]*$/;

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` percent-encoded, as a pattern (every pattern here is case-insensitive: either case of hex matches). */
const encodedPattern = (text: string): string => escaped(encodeURIComponent(text));

/** The patterns of one upstream's address, made once per rewriter. */
interface AddressPatterns {
  /** Worth a closer look: the authority as written, or an encoding that may hide it. */
  readonly suspect: RegExp;
  /** The base, as written or percent-encoded (global, case-insensitive). */
  readonly base: RegExp;
  readonly encodedBase: RegExp;
  /** The authority (`host:port`; a host on its default port with or without it), as written or percent-encoded. */
  readonly authority: RegExp;
  /** The authority, tested on a decoded text. */
  readonly hidden: RegExp;
  /** The host as the URL parser writes it (lower case), and any spelling of it (global, case-insensitive). */
  readonly hostname: string;
  readonly anyHost: RegExp | undefined;
}

function addressPatterns(upstreamBase: string): AddressPatterns {
  const url = new URL(upstreamBase);
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  const port = url.port === '' ? `(?::${defaultPort}(?![0-9]))?` : `:${url.port}(?![0-9])`;
  const encodedPort = url.port === '' ? `(?:%3A${defaultPort}(?![0-9]))?` : `%3A${url.port}(?![0-9])`;
  const host = escaped(url.hostname);
  const encodedHost = encodedPattern(url.hostname);
  const authority = `${host}${port}|${encodedHost}${encodedPort}`;
  return {
    suspect: new RegExp(`${host}${port}|%|&#|\\\\u`, 'i'),
    // Not followed by more of a path segment: `…/fhir/R4x` is not under `…/fhir/R4`.
    base: new RegExp(`${escaped(upstreamBase)}(?![A-Za-z0-9._~%-])`, 'gi'),
    encodedBase: new RegExp(`${encodedPattern(upstreamBase)}(?![A-Za-z0-9._~-]|%(?!2F|3F|23))`, 'gi'),
    authority: new RegExp(authority, 'gi'),
    hidden: new RegExp(`${host}${port}`, 'i'),
    hostname: url.hostname,
    // A host without letters (an IP address) has one spelling.
    anyHost: /[a-z]/.test(url.hostname) ? new RegExp(host, 'gi') : undefined,
  };
}

/** True when `text` holds what, besides the host, makes a text worth a closer look (as {@link AddressPatterns.suspect} does): one scan per form, each far cheaper than the pattern's. */
const hasEncoding = (text: string): boolean => text.includes('%') || text.includes('&#') || text.includes('\\u') || text.includes('\\U');

/**
 * True when no string parsed from `text` (a JSON text as received) can match {@link AddressPatterns.suspect}
 * without holding the host as the URL parser writes it: `text` holds no encoding (a parsed string's `%`,
 * `&#` or `\u` would be in it as written, or come from a `\u` escape) and the host, wherever it is, only
 * in that spelling (a host holds no character that a JSON escape other than `\u` makes).
 */
function plainText(text: string, a: AddressPatterns): boolean {
  if (hasEncoding(text)) return false;
  if (a.anyHost === undefined) return true;
  for (const m of text.matchAll(a.anyHost)) if (m[0] !== a.hostname) return false;
  return true;
}

/** Maps URLs between an upstream FHIR base and the facade's base for it. */
export class BaseRewriter {
  readonly #upstream: ParsedBase;
  readonly #facade: ParsedBase;
  readonly #address: AddressPatterns;
  readonly #encodedFacadeBase: string;
  readonly upstreamBase: string;
  readonly facadeBase: string;
  /** Both bases, as a compartment check takes them (a reference may be absolute under either). */
  readonly bases: readonly string[];
  // Made once: a closure per answer was a visible share of the facade read's allocations.
  readonly #textToFacade = (text: string): string => this.textToFacade(text);
  // Of a plain answer (see `plainText`): a string without the host as written holds nothing to rewrite.
  readonly #hostToFacade = (text: string): string => (text.includes(this.#address.hostname) ? this.textToFacade(text) : text);
  readonly #toUpstreamOrSame = (url: string, key: string): string => (URL_KEYS.has(key) ? (this.toUpstream(url) ?? url) : url);

  /** Both bases without a trailing slash. */
  constructor(upstreamBase: string, facadeBase: string) {
    this.#upstream = parsedBase(upstreamBase);
    this.#facade = parsedBase(facadeBase);
    this.upstreamBase = upstreamBase.replace(/\/+$/, '');
    this.facadeBase = facadeBase.replace(/\/+$/, '');
    this.bases = Object.freeze([this.upstreamBase, this.facadeBase]);
    this.#address = addressPatterns(this.upstreamBase);
    this.#encodedFacadeBase = encodeURIComponent(this.facadeBase);
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

  /**
   * Any text of an answer (an element's value, a header) by the module's one rule: a URL under the
   * upstream base moved, the base elsewhere in the text rewritten, any other mention of the upstream's
   * address redacted; `text` itself when it holds none.
   */
  textToFacade(text: string): string {
    const a = this.#address;
    if (!a.suspect.test(text)) return text;
    const moved = /^[a-z][a-z0-9+.-]*:/i.test(text) ? this.toFacade(text) : undefined;
    if (moved !== undefined && !a.suspect.test(moved)) return moved;
    const out = (moved ?? text).replace(a.base, this.facadeBase).replace(a.encodedBase, this.#encodedFacadeBase).replace(a.authority, REDACTED_HOST);
    if (!decodedForms(out).some((form) => a.hidden.test(form))) return out;
    return /^\s*<div[\s>]/i.test(text) ? XHTML_REDACTED : REDACTED_TEXT;
  }

  /**
   * False when `text` (an answer's JSON as received) cannot hold the upstream's address in any form, so
   * that nothing of it needs {@link resourceToFacade}: one scan of the text instead of a walk of every string.
   */
  mayHoldAddress(text: string): boolean {
    return this.#address.suspect.test(text);
  }

  /** A copy of a JSON value with every string (and member name) under the rule of {@link textToFacade}. */
  resourceToFacade<T>(value: T): T {
    return walk(value, this.#textToFacade, true) as T;
  }

  /**
   * {@link resourceToFacade} of `value`, parsed from `text` (an answer's JSON as received) and holding no
   * string that is not `text`'s own: `value` itself when `text` cannot hold the upstream's address (see
   * {@link mayHoldAddress}); when `text` holds no encoding of anything and the host only as the URL parser
   * writes it, only the strings that hold the host as written are looked at closely (the closer look at
   * every string was 4 % of the facade's own CPU in a federated search over two sources).
   */
  answerToFacade<T>(value: T, text: string): T {
    const a = this.#address;
    if (!a.suspect.test(text)) return value;
    return walk(value, plainText(text, a) ? this.#hostToFacade : this.#textToFacade, true) as T;
  }

  /** A copy of a request body with every URL element under the facade's base moved upstream. */
  resourceToUpstream<T>(value: T): T {
    return walk(value, this.#toUpstreamOrSame, false) as T;
  }
}

function move(url: string, from: ParsedBase, to: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  // Most URLs of an answer are the base as the parser writes it and a plain path: moved without a parse,
  // to what the parser's way below gives (a twentieth of a federated search's CPU was these parses).
  if (url.startsWith(from.prefix)) {
    const rest = url.slice(from.prefix.length);
    const under = rest.startsWith('/') || (from.path !== '' && (rest === '' || rest.startsWith('?')));
    // An empty query (a last `?`) the parser drops.
    if (under && !rest.endsWith('?') && KEPT_AS_WRITTEN.test(rest) && !holdsDotSegment(rest)) return `${to}${rest}`;
  }
  if (!URL.canParse(url)) return undefined;
  const u = new URL(url);
  if (u.origin !== from.origin) return undefined;
  if (u.pathname !== from.path && !u.pathname.startsWith(`${from.path}/`)) return undefined;
  return `${to}${u.pathname.slice(from.path.length)}${u.search}${u.hash}`;
}

/**
 * A copy of `value` with its strings mapped (`map(text, key)`, `key` `''` in an array; member names too
 * when `names`); `value` itself when nothing changed (so an answer with nothing to rewrite is sent as it
 * came), else a copy of only the objects and arrays on the way to a change. Allocates nothing until
 * something changes: the `Object.entries` and `map` of every object and array were the largest share of
 * the facade read's garbage (`--heap-prof` sampling, 4 KB of 57 KB per read). A `"__proto__"` member
 * stays an element of the copy (the spread copies it as an own element, and setting it sets that one).
 */
export function walk(value: unknown, map: (text: string, key: string) => string, names: boolean): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const next = typeof v === 'string' ? map(v, '') : walk(v, map, names);
      if (next !== v) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const v = record[key];
    const next = typeof v === 'string' ? map(v, key) : walk(v, map, names);
    const name = names ? map(key, '') : key;
    if (name !== key) {
      out ??= { ...record };
      delete out[key];
      out[name] = next;
    } else if (next !== v) (out ??= { ...record })[key] = next;
  }
  return out ?? value;
}
