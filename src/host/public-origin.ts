/**
 * Where the host says it lives, in URLs it hands out (a WSDL's `soap:address`, a CapabilityStatement's
 * `implementation.url`, the URL a CDS client JWT's `aud` is checked against). A request's own `Host` and
 * `X-Forwarded-*` headers are chosen by the caller, so they are used only behind a trusted proxy and
 * only for hosts on an allowlist; otherwise the configured `publicUrl`, else the address the connection
 * came in on.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** How the public origin is found; made once from the host's options. */
export interface OriginPolicy {
  /** The configured public URL, without a trailing slash (`https://api.example.org/base`). */
  readonly publicUrl: string | undefined;
  readonly trustProxy: boolean;
  /** Lower-case `host` or `host:port` values that `Host`/`X-Forwarded-Host` may name. */
  readonly allowedHosts: ReadonlySet<string>;
}

const SANE_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function firstValue(value: string | string[] | undefined): string | undefined {
  const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();
  return first === '' ? undefined : first;
}

function allowed(host: string | undefined, policy: OriginPolicy): host is string {
  if (host === undefined || !SANE_HOST.test(host)) return false;
  // A port over 65535 would put a URL no client can parse into the WSDL.
  if (Number(/:(\d+)$/.exec(host)?.[1] ?? 0) > 65535) return false;
  const lower = host.toLowerCase();
  return policy.allowedHosts.has(lower) || policy.allowedHosts.has(lower.replace(/:\d+$/, ''));
}

/** `scheme://host[:port][/path]` of the host as callers should see it, without a trailing slash. */
export function publicOrigin(req: IncomingMessage, policy: OriginPolicy): string {
  if (policy.publicUrl !== undefined) return policy.publicUrl;
  const encrypted = (req.socket as TLSSocket).encrypted === true;
  if (policy.trustProxy) {
    const forwardedProto = firstValue(req.headers['x-forwarded-proto']);
    const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : encrypted ? 'https' : 'http';
    const host = [firstValue(req.headers['x-forwarded-host']), req.headers.host].find((h) => h !== undefined);
    if (allowed(host, policy)) return `${proto}://${host}`;
  }
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `${encrypted ? 'https' : 'http'}://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort ?? 80}`;
}

/** Checks option `allowedHosts` (host names or `host:port` values) and returns them in lower case. */
export function checkAllowedHosts(value: unknown): ReadonlySet<string> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value) || value.some((h) => typeof h !== 'string' || !SANE_HOST.test(h))) {
    throw new TypeError('options.allowedHosts must be an array of host names or host:port values');
  }
  return new Set(value.map((h: string) => h.toLowerCase()));
}
