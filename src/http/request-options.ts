/**
 * The options of {@link request}, their defaults and their one-time validation.
 * @module
 */
import type http from 'node:http';
import type { Readable } from 'node:stream';
import { checkRetryOptions } from './retry-policy.js';
import type { CheckedTLS } from './tls-options.js';
import type { RetryOptions, RetryPolicy } from './retry-policy.js';
import { numberOption, signalOption } from '../lib/options.js';

/**
 * Options of `request()`. The retry options are those of {@link RetryOptions}: idempotent requests are
 * retried on 429, 502, 503, 504 and on refused or reset connections, twice by default.
 */
export interface HTTPRequestOptions extends RetryOptions {
  /** The HTTP method, upper case. Default `GET`. */
  method?: string;
  /** Request headers. Names are case-insensitive; `User-Agent` defaults to `fhirgate/<version>`. */
  headers?: Record<string, string>;
  /** The request body; `Content-Length` is set from it. */
  body?: string | Uint8Array;
  /** Aborts the request (rejects with `ERR_ABORTED`, or `ERR_TIMEOUT` for a `TimeoutError` reason). */
  signal?: AbortSignal;
  /**
   * Milliseconds before the request rejects with `ERR_TIMEOUT`, retries and their waits included (from
   * 1 000 on, up to 500 later: see `startTimer`). Default 30 000; `Infinity` for none.
   */
  timeoutMs?: number;
  /** Bytes of response body buffered at most; more rejects with `ERR_RESPONSE_TOO_LARGE`. Default 10 MiB. */
  maxResponseBytes?: number;
  /** The agent to send through. Default: Node's global agent for the URL's protocol. */
  agent?: http.Agent;
}

/** A complete, buffered answer. */
export interface HTTPResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /**
   * With the `stream` option, a 2xx answer's body, not read yet (`body` is then empty). The reader
   * must consume or destroy it: its socket stays busy (counted by the pool) until then.
   */
  stream?: Readable;
}

/** The options after validation: headers lower-cased, defaults applied. */
export interface CheckedRequestOptions {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly agent: http.Agent | undefined;
  readonly retry: RetryPolicy;
  /** True: a 2xx answer settles as soon as its headers came, its body left unread in `stream` (no `maxResponseBytes`). */
  readonly stream?: boolean;
  /** The source's TLS settings: a pool sends through the agents of these settings (see `AgentPool`). */
  readonly tls?: CheckedTLS;
  /** Who the request is for, as the diagnostics channels tell it (metrics): set by the gateway for its sources' calls. */
  readonly label?: UpstreamLabel;
}

/**
 * What an upstream request is, for the `fhirgate:request:end` and `fhirgate:pool:wait` messages: the
 * source's name and the FHIR interaction (`read`, `search`, ...). Bounded values only: never an id or a URL.
 */
export interface UpstreamLabel {
  readonly source: string;
  readonly interaction: string;
}

/** Defaults of `request()`: 30 s time-out, 10 MiB response limit. */
export const HTTP_DEFAULTS = Object.freeze({ timeoutMs: 30_000, maxResponseBytes: 10 * 1024 * 1024 });

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What `node:http` refuses in a header value (RFC 9110 §5.5: no control character but HTAB). */
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Validates and copies `request()` options once. Throws `TypeError`/`RangeError` naming the option. */
export function checkRequestOptions(options: HTTPRequestOptions): CheckedRequestOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const method = options.method ?? 'GET';
  if (typeof method !== 'string' || !TOKEN.test(method)) throw new TypeError('options.method must be an HTTP method name');
  const headers = options.headers === undefined ? (Object.create(null) as Record<string, string>) : checkHeaders(options.headers);
  const body = options.body;
  if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError('options.body must be a string or a Uint8Array');
  }
  signalOption(options.signal, 'options.signal');
  return {
    method: method.toUpperCase(),
    headers,
    body,
    signal: options.signal,
    timeoutMs: numberOption(options.timeoutMs, 'options.timeoutMs', HTTP_DEFAULTS.timeoutMs, { above: 0, infinite: true }),
    maxResponseBytes: numberOption(options.maxResponseBytes, 'options.maxResponseBytes', HTTP_DEFAULTS.maxResponseBytes, { above: 0 }),
    agent: options.agent,
    retry: checkRetryOptions(options),
  };
}

/**
 * Validates request headers and copies them with lower-case names; a bad name or value is a
 * `TypeError` naming the header.
 */
export function checkHeaders(given: Readonly<Record<string, string>>): Record<string, string> {
  return addHeaders(Object.create(null) as Record<string, string>, given);
}

/**
 * {@link checkHeaders} into `headers` (a later one of the same name replaces it): for a caller that
 * starts from headers of its own, with no copy of the checked ones to spread in afterwards. Returns
 * `headers`.
 */
export function addHeaders(headers: Record<string, string>, given: Readonly<Record<string, string>>): Record<string, string> {
  if (typeof given !== 'object' || given === null) throw new TypeError('options.headers must be an object');
  for (const name in given) {
    if (!Object.hasOwn(given, name)) continue;
    const value = given[name];
    if (!TOKEN.test(name) || typeof value !== 'string' || BAD_VALUE.test(value)) throw new TypeError(`options.headers["${name}"] must be a string header`);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

/**
 * Where a request goes: the parts of a `URL` the transport reads. A `URL` is one; so is a plain object
 * built from a base URL parsed once (the gateway's resource paths), which spares a URL parse per
 * request: A/B at concurrency 16, a pool send with a `new URL()` per request ran at 0.85x the same send
 * with the URL made once.
 */
export type HTTPTarget = Pick<URL, 'origin' | 'protocol' | 'hostname' | 'port' | 'pathname' | 'search' | 'username' | 'password'>;

/** Parses `url` as an absolute `http:` or `https:` URL; anything else is a `TypeError`. */
export function toHTTPUrl(url: string | URL): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new TypeError('url must be an absolute URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError('url must be an http: or https: URL');
  return target;
}
