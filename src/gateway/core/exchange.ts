/**
 * A raw FHIR exchange with a source, on the gateway's call path (pool, bearer token, one retry after a
 * 401, the retry policy, the source's counts): what a pass-through component (the FHIR facade) needs
 * and the typed operations do not give, since it must hand back any status with its headers. An answer
 * nested deeper than any resource (`ERR_FHIR_RESPONSE`) or sending back the bearer token
 * (`ERR_CREDENTIALS_ECHOED`) is an upstream failure, never handed on.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import { holdsDotSegment } from '../../lib/dot-segment.js';
import { MAX_RESOURCE_DEPTH, nestsDeeperThan } from '../../lib/json-depth.js';
import { pickHeaders } from '../../http/buffered-response.js';
import type { HTTPTarget } from '../../http/request-options.js';
import { callFHIR } from './fhir-call.js';
import type { CallScope } from './call-options.js';
import type { CallContext } from './fhir-call.js';
import type { GatewayEvents } from './gateway-events.js';
import type { Source } from './source-registry.js';

/**
 * One request of {@link exchange}.
 *
 * @example
 * ```ts
 * const request: FHIRExchangeRequest = { method: 'GET', path: 'Patient?family=Doe', headers: { prefer: 'handling=strict' } };
 * ```
 */
export interface FHIRExchangeRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * Path and query under the source's base (`''` is the base itself, `Patient/1`, `Patient?name=x`), or
   * an absolute URL under the base (a `next` link as the server gave it); anything else is `ERR_CROSS_ORIGIN`.
   */
  readonly path: string;
  /**
   * Request headers. Only {@link EXCHANGE_REQUEST_HEADERS} are sent; `authorization` never is (the
   * source's own token is). `accept` defaults to `application/fhir+json`.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body; `content-type` defaults to `application/fhir+json; charset=utf-8`. */
  readonly body?: string;
  /** The resource type it is about, for its `fhir.<type>.<operation>` event (no event without it). */
  readonly resourceType?: string;
  /** The interaction (`read`, `search-type`, ...), for the event. Default the method in lower case. */
  readonly operation?: string;
}

/**
 * The answer of {@link exchange}, whatever its status.
 *
 * @example
 * ```ts
 * const { status, headers, body } = await gw.exchange('ehr', { method: 'GET', path: 'Patient/1' });
 * ```
 */
export interface FHIRExchangeResponse {
  readonly status: number;
  /** Only {@link EXCHANGE_RESPONSE_HEADERS}, names in lower case; never a cookie or a server header. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** The request headers an exchange sends on (FHIR R4 REST's conditional and preference headers). */
export const EXCHANGE_REQUEST_HEADERS: readonly string[] = Object.freeze(['accept', 'prefer', 'if-match', 'if-none-match', 'if-none-exist', 'if-modified-since', 'content-type']);

/** The response headers an exchange hands back. */
export const EXCHANGE_RESPONSE_HEADERS: readonly string[] = Object.freeze(['content-type', 'etag', 'last-modified', 'location', 'content-location', 'retry-after', 'x-progress']);

/**
 * Sends one raw request to `source` and returns its answer, any status included; network failures,
 * time-outs and token failures reject as every gateway call does.
 */
export function exchange(ctx: CallContext, events: GatewayEvents, source: Source, request: FHIRExchangeRequest, scope: CallScope): Promise<FHIRExchangeResponse> {
  const url = targetOf(source, request.path);
  const headers: Record<string, string> = {};
  for (const name of EXCHANGE_REQUEST_HEADERS) {
    const value = request.headers?.[name];
    if (value !== undefined) headers[name] = value;
  }
  const operation = request.operation ?? request.method.toLowerCase();
  const reference = request.resourceType ?? source.name;
  // Chained on the call's promise: one async frame (callFHIR's) per exchange waiting for its answer. The
  // scope's fields are written out, not spread (as the engine's reads: a spread went to a second backing store).
  const call = { method: request.method, url, body: request.body, headers, operation, reference, expected: 'all', signal: scope.signal, retry: scope.retry } as const;
  return callFHIR(ctx, source, call).then((res) => {
    const picked = pickHeaders(res, EXCHANGE_RESPONSE_HEADERS);
    // A body of no more bytes than the depth limit has no more characters either: it is not decoded to be looked at.
    if (/json/i.test(picked['content-type'] ?? 'json') && res.body.length > MAX_RESOURCE_DEPTH && nestsDeeperThan(res.body.toString('utf8'), MAX_RESOURCE_DEPTH)) {
      source.errors++;
      throw new FhirgateError('ERR_FHIR_RESPONSE', `${operation} ${reference}: the server answered ${res.status} with JSON nested more than ${MAX_RESOURCE_DEPTH} levels deep`);
    }
    const resourceType = request.resourceType;
    if (resourceType !== undefined) {
      const name = `fhir.${resourceType.toLowerCase()}.${operation}`;
      if (events.wants(name)) events.emit(name, { resource_type: resourceType, source: source.name, operation, status: res.status });
    }
    return { status: res.status, headers: picked, body: res.body };
  });
}

/**
 * A relative path and query the URL parser leaves as they are: segments of characters it never escapes in
 * a path (a `%` kept as it is), none of them a dot segment (`.`, `..`, or those written with `%2e`,
 * which it removes), and a query of characters it never escapes in a query of an http(s) URL (not `'`).
 * What the facade sends (segments through `encodeURIComponent`, a query from `URLSearchParams`) is one.
 */
const PLAIN_PATH = /^[\w\-.~!$&'()*+,;=:@%]+(?:\/[\w\-.~!$&'()*+,;=:@%]+)*(?:\?[\w\-.~!$&()*+,;=:@%/?]+)?$/;

/**
 * The URL of `path` under the source's base; an absolute URL must stay under it. A plain relative path
 * (see {@link PLAIN_PATH}) is put on the base parsed once, with no URL parse per request: the parse was
 * 1% of a facade read's CPU on Node 24 (`node --cpu-prof`, `targetOf`).
 */
function targetOf(source: Source, path: string): HTTPTarget {
  if (typeof path !== 'string') throw new TypeError('request.path must be a string');
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    const url = URL.canParse(path) ? new URL(path) : undefined;
    if (url === undefined || url.origin !== source.origin || !(url.pathname === source.base.pathname || url.pathname.startsWith(`${source.base.pathname}/`))) {
      throw new FhirgateError('ERR_CROSS_ORIGIN', `exchange: the URL is not under the base of source "${source.name}"`);
    }
    return url;
  }
  if (PLAIN_PATH.test(path) && !holdsDotSegment(path)) {
    const { origin, protocol, hostname, port, username, password, pathname } = source.base;
    const query = path.indexOf('?');
    return query === -1
      ? { origin, protocol, hostname, port, username, password, pathname: `${pathname}/${path}`, search: '' }
      : { origin, protocol, hostname, port, username, password, pathname: `${pathname}/${path.slice(0, query)}`, search: path.slice(query) };
  }
  return new URL(path === '' ? source.baseUrl : `${source.baseUrl}/${path.replace(/^\/+/, '')}`);
}
