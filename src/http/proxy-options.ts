/**
 * The `proxy` option: which HTTP proxy an upstream is reached through, checked once.
 * @module
 */
import { checkObject, onlyKnownKeys } from '../lib/options.js';
import { bypassesProxy, parseNoProxy } from './no-proxy.js';
import type { NoProxyRules } from './no-proxy.js';

/**
 * An outbound HTTP proxy (what `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` say to curl; `fhirgate
 * serve` reads them into this option). `https` upstreams are reached through a `CONNECT` tunnel (the
 * proxy sees the host name, never the traffic); `http` upstreams through the proxy with absolute-form
 * request targets, as curl and Node send them (most proxies refuse `CONNECT` to ports other than 443).
 * Credentials in a proxy URL are sent as `Proxy-Authorization: Basic` and never logged.
 *
 * @example
 * ```ts
 * new AsyncFHIRGateway({
 *   proxy: { https: 'http://proxy.hospital.local:3128', http: 'http://proxy.hospital.local:3128', noProxy: 'localhost,.hospital.local' },
 * });
 * ```
 */
export interface ProxyOptions {
  /** The proxy for `https` upstreams: `http://[user:password@]host:port`. Default: none (direct). */
  https?: string;
  /** The proxy for `http` upstreams: `http://[user:password@]host:port`. Default: none (direct). */
  http?: string;
  /**
   * Upstreams reached directly, as curl reads `NO_PROXY`: a comma- or space-separated list (or an array)
   * of host names, IP addresses, domains (`example.org` or `.example.org`: the name and every name under
   * it), `host:port` (that port only) and `*` (every upstream). Default: none.
   */
  noProxy?: string | readonly string[];
}

/** A proxy server as the transport uses it. */
export interface ProxyServer {
  readonly host: string;
  readonly port: number;
  /** `Basic …` from the URL's user information, or `undefined`. A secret: never logged. */
  readonly authorization: string | undefined;
  /** `http://host:port`, without credentials: what messages may show. */
  readonly origin: string;
}

/** The checked option: the proxy (if any) of each scheme and the direct upstreams. */
export interface CheckedProxy {
  readonly https: ProxyServer | undefined;
  readonly http: ProxyServer | undefined;
  readonly noProxy: NoProxyRules;
}

const KEYS = ['https', 'http', 'noProxy'] as const;

/**
 * Validates `proxy` (named `name` in messages) once: `undefined` stays `undefined`; an unknown key, a
 * URL that is not `http://host:port` or a bad `noProxy` entry is a `TypeError` that never quotes a
 * password.
 */
export function checkProxyOptions(proxy: ProxyOptions | undefined, name: string): CheckedProxy | undefined {
  if (proxy === undefined) return undefined;
  checkObject(proxy, name);
  onlyKnownKeys(proxy, KEYS, name);
  const https = proxyServer(proxy.https, `${name}.https`);
  const http = proxyServer(proxy.http, `${name}.http`);
  const noProxy = proxy.noProxy;
  if (noProxy !== undefined && typeof noProxy !== 'string' && !(Array.isArray(noProxy) && noProxy.every((e) => typeof e === 'string'))) {
    throw new TypeError(`${name}.noProxy must be a string or an array of strings`);
  }
  const rules = parseNoProxy(typeof noProxy === 'string' ? noProxy : (noProxy ?? []).join(','), `${name}.noProxy`);
  return https === undefined && http === undefined ? undefined : Object.freeze({ https, http, noProxy: rules });
}

/** The proxy `target` is reached through, or `undefined` for a direct connection. */
export function proxyFor(proxy: CheckedProxy | undefined, target: { protocol: string; hostname: string; port: string }): ProxyServer | undefined {
  if (proxy === undefined) return undefined;
  const https = target.protocol === 'https:';
  const server = https ? proxy.https : proxy.http;
  if (server === undefined) return undefined;
  const port = target.port === '' ? (https ? 443 : 80) : Number(target.port);
  return bypassesProxy(proxy.noProxy, target.hostname, port) ? undefined : server;
}

function proxyServer(value: unknown, name: string): ProxyServer | undefined {
  if (value === undefined) return undefined;
  const url = typeof value === 'string' ? parsed(value) : undefined;
  if (url === undefined || url.protocol !== 'http:' || url.hostname === '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw new TypeError(`${name} must be an http://[user:password@]host[:port] URL of a proxy`);
  }
  const credentials = url.username === '' && url.password === '' ? undefined : `${decoded(url.username, name)}:${decoded(url.password, name)}`;
  return Object.freeze({
    host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? 80 : Number(url.port),
    authorization: credentials === undefined ? undefined : `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`,
    origin: url.origin,
  });
}

/** A percent-decoded part of the user information; a malformed `%` escape is a `TypeError` that does not quote it. */
function decoded(part: string, name: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new TypeError(`${name}: the user or password has a malformed %-escape (write a literal % as %25)`);
  }
}

/** `value` as a URL; a bare `host:port` (as some `HTTPS_PROXY` values are written) is read as `http://host:port`. */
function parsed(value: string): URL | undefined {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    return undefined;
  }
}
