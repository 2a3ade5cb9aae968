/**
 * The FHIR servers a CDS service may fetch prefetch data from (option `fhirServers`). An entry is a base
 * URL or an origin; a URL is allowed when it has the entry's origin and its path starts with the entry's
 * path on a segment boundary: `https://ehr.example.org/fhir` allows `https://ehr.example.org/fhir/r4/Patient/1`
 * but neither `https://ehr.example.org/fhirx` nor `https://ehr.example.org/other`.
 * @module
 */

/** One allowed prefix: an origin and a path that ends with `/`. */
interface Prefix {
  readonly origin: string;
  readonly path: string;
}

const withSlash = (path: string): string => (path.endsWith('/') ? path : `${path}/`);

function prefixOf(value: unknown, name: string): Prefix {
  // A fragment or a query has no place in a base URL; `#` and `?` are refused even when empty.
  const url = typeof value === 'string' && !/[#?]/.test(value) && URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new TypeError(`${name} must be an absolute http(s) URL without query or fragment`);
  }
  if (url.username !== '' || url.password !== '') throw new TypeError(`${name} must not contain credentials`);
  return { origin: url.origin, path: withSlash(url.pathname) };
}

/** A checked, copied list of allowed FHIR server base URLs. */
export class FHIRServerAllowlist {
  readonly #prefixes: readonly Prefix[];

  private constructor(prefixes: readonly Prefix[]) {
    this.#prefixes = prefixes;
  }

  /**
   * Checks an option value: `undefined` gives `undefined` (no list); anything but an array of absolute
   * http(s) URLs without credentials, query or fragment is a `TypeError` naming the option.
   */
  static from(value: unknown, name: string): FHIRServerAllowlist | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of FHIR server base URLs`);
    return new FHIRServerAllowlist(Object.freeze(value.map((entry, i) => prefixOf(entry, `${name}[${i}]`))));
  }

  /** Whether `url` lies under one of the allowed base URLs (same origin, path prefix on a segment boundary). */
  allows(url: URL): boolean {
    const path = withSlash(url.pathname);
    return this.#prefixes.some((p) => p.origin === url.origin && path.startsWith(p.path));
  }
}
