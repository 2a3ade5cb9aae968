/**
 * CORS: off unless configured; an allowlist of exact origins (or `'*'` without credentials); preflights
 * answered by the host before authentication.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import { keysOf, numberOption, onlyKnownKeys } from '../lib/options.js';
import type { RouteReply } from '../mount/index.js';

/** The `cors` option of `createServiceAPI`. */
export interface CORSOptions {
  /** Origins allowed to call (`https://app.example.org`, no path), or `'*'` for any origin. */
  origins: readonly string[] | '*';
  /** Send `Access-Control-Allow-Credentials: true`. Not allowed with `origins: '*'`. Default false. */
  credentials?: boolean;
  /** Request headers a browser may send. Default `authorization`, `content-type`, `x-api-key`, `x-request-id`. */
  allowHeaders?: readonly string[];
  /** Response headers a page may read. Default `x-request-id`. */
  exposeHeaders?: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. Default 600. */
  maxAgeSeconds?: number;
}

/** The keys of {@link CORSOptions}; any other is refused with the nearest of these. */
export const CORS_OPTION_KEYS = keysOf<CORSOptions>({ origins: true, credentials: true, allowHeaders: true, exposeHeaders: true, maxAgeSeconds: true });

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

function stringList(value: unknown, option: string): readonly string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) {
    throw new TypeError(`options.cors.${option} must be an array of non-empty strings`);
  }
  return Object.freeze([...value]);
}

function checkOrigin(origin: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed.origin !== origin) throw new RangeError(`options.cors.origins: "${origin}" is not an origin such as https://app.example.org`);
  return origin;
}

/** A validated CORS policy. */
export class CORSPolicy {
  readonly #origins: ReadonlySet<string> | '*';
  readonly #credentials: boolean;
  readonly #allowHeaders: string;
  readonly #exposeHeaders: string;
  readonly #maxAge: string;

  constructor(options: CORSOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('options.cors must be an object');
    onlyKnownKeys(options, CORS_OPTION_KEYS, 'options.cors');
    const credentials = options.credentials ?? false;
    if (typeof credentials !== 'boolean') throw new TypeError('options.cors.credentials must be a boolean');
    if (options.origins === '*') {
      if (credentials) throw new RangeError('options.cors.origins cannot be "*" when "credentials" is true');
      this.#origins = '*';
    } else {
      this.#origins = new Set(stringList(options.origins, 'origins').map(checkOrigin));
    }
    const maxAge = numberOption(options.maxAgeSeconds, 'options.cors.maxAgeSeconds', 600, { integer: true, min: 0, unit: 'seconds' });
    this.#credentials = credentials;
    this.#allowHeaders = stringList(options.allowHeaders ?? ['authorization', 'content-type', 'x-api-key', 'x-request-id'], 'allowHeaders').join(', ');
    this.#exposeHeaders = stringList(options.exposeHeaders ?? ['x-request-id'], 'exposeHeaders').join(', ');
    this.#maxAge = String(maxAge);
  }

  /** The CORS headers of an actual (non-preflight) answer to a request from `origin`. */
  headersFor(origin: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { vary: 'Origin' };
    if (origin === undefined) return headers;
    if (this.#origins === '*') headers['access-control-allow-origin'] = '*';
    else if (this.#origins.has(origin)) headers['access-control-allow-origin'] = origin;
    else return headers;
    if (this.#credentials) headers['access-control-allow-credentials'] = 'true';
    headers['access-control-expose-headers'] = this.#exposeHeaders;
    return headers;
  }

  /**
   * The answer to a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`), or
   * `undefined` when `method`/`headers` are not a preflight. A preflight from an origin not allowed gets
   * 204 without `Access-Control-Allow-*` headers, which the browser treats as a refusal.
   */
  preflight(method: string, headers: IncomingHttpHeaders): RouteReply | undefined {
    if (method !== 'OPTIONS' || headers.origin === undefined || headers['access-control-request-method'] === undefined) return undefined;
    const base = this.headersFor(headers.origin);
    if (base['access-control-allow-origin'] === undefined) return { status: 204, headers: base };
    delete base['access-control-expose-headers'];
    return {
      status: 204,
      headers: {
        ...base,
        'access-control-allow-methods': ALLOW_METHODS,
        'access-control-allow-headers': this.#allowHeaders,
        'access-control-max-age': this.#maxAge,
      },
    };
  }
}
