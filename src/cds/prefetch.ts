/**
 * Fills the prefetch keys a CDS client did not send, by querying its `fhirServer` with its
 * `fhirAuthorization` bearer token, through fhirgate's own HTTP core. Every URL is the rendered template
 * resolved against `fhirServer`; templates are relative and their values URL-encoded, so no other origin
 * is ever reached. With an allowlist (`fhirServers`), a URL outside it is never fetched; without one, a
 * `fhirServer` whose host is or resolves to a non-public address (loopback, private, link-local...) is
 * never contacted (see `address-guard.ts`). The caller is told when the address rules refused a server
 * (without its address: how to allow it); a server that could not be reached (refused, closed, timed out)
 * reads the same whatever the cause; the log line says which.
 * @module
 */
import type { ProxyAgents } from '../http/proxy-agents.js';
import { isFhirgateError } from '../errors.js';
import { request } from '../http/request.js';
import type { Logger } from '../mount/index.js';
import { NonPublicAddressError, publicOnlyAgent } from './address-guard.js';
import { CDSError } from './cds-error.js';
import type { FHIRServerAllowlist } from './fhir-server-allowlist.js';
import { isReadQuery, renderTemplate } from './prefetch-template.js';
import type { CDSHookRequest, JSONObject } from './types.js';

/** How prefetch fetches behave. */
export interface PrefetchOptions {
  /** Time-out of one fetch, in milliseconds. */
  timeoutMs: number;
  /** Largest accepted answer, in bytes. */
  maxBytes: number;
  /** Allow plain http on hosts other than loopback. */
  allowInsecure: boolean;
  /** The FHIR servers that may be fetched from; `undefined`: any. */
  allowed: FHIRServerAllowlist | undefined;
  /** The outbound proxy's agents (`agentFor` is `undefined` for a server reached directly). */
  proxy: ProxyAgents | undefined;
  /** Where a refused `fhirServer` is reported. */
  log: Logger;
  /** Aborts the fetches (the caller went away). */
  signal: AbortSignal;
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

function unobtainable(key: string, problem: string, cause?: unknown): CDSError {
  return new CDSError('ERR_CDS_PREFETCH', `prefetch.${key} could not be obtained: ${problem}`, 412, `prefetch.${key}`, cause);
}

function serverBase(fhirServer: string | undefined, key: string, allowInsecure: boolean): URL {
  if (fhirServer === undefined) throw unobtainable(key, 'it was not sent and the request has no fhirServer');
  const base = new URL(fhirServer.endsWith('/') ? fhirServer : `${fhirServer}/`);
  if (base.protocol === 'http:' && !allowInsecure && !LOOPBACK.test(base.hostname)) {
    throw unobtainable(key, 'fhirServer must use https (plain http is only allowed on loopback)');
  }
  return base;
}

async function fetchOne(key: string, query: string, req: CDSHookRequest, options: PrefetchOptions): Promise<JSONObject | null> {
  const base = serverBase(req.fhirServer, key, options.allowInsecure);
  const url = new URL(query, base);
  if (options.allowed !== undefined && !options.allowed.allows(url)) {
    options.log.warn('CDS prefetch refused: fhirServer is not an allowed FHIR server', { prefetch_key: key, fhir_server: `${base.origin}${base.pathname}` });
    throw new CDSError('ERR_CDS_PREFETCH', `fhirServer is not an allowed FHIR server: prefetch.${key} could not be obtained`, 412, 'fhirServer');
  }
  const unreachable = (reason: string, cause?: unknown): CDSError => {
    options.log.warn('CDS prefetch failed: the FHIR server could not be reached', { prefetch_key: key, fhir_server: url.origin, reason });
    return unobtainable(key, 'the FHIR server could not be reached', cause);
  };
  // A server the address rules refuse is named as refused, never as unreachable, without its address.
  const notAllowed = (reason: string, cause?: unknown): CDSError => {
    options.log.warn('CDS prefetch refused: the FHIR server is not allowed by the prefetch address rules', { prefetch_key: key, fhir_server: url.origin, reason });
    return unobtainable(key, "the FHIR server is not allowed: prefetch reaches public addresses only, or the servers listed in the service's fhirServers option", cause);
  };
  // Through a proxy, the proxy resolves the host: whether it is public cannot be checked, so only allowlisted servers go that way.
  const proxied = options.proxy?.agentFor(url);
  if (proxied !== undefined && options.allowed === undefined) throw notAllowed('fhirServer would be reached through the proxy, where its address cannot be checked: list it in fhirServers');
  // An allowlisted server was named by whoever configured the service; any other must be public.
  const agent = options.allowed === undefined ? publicOnlyAgent(url) : proxied;
  if (options.allowed === undefined && agent === undefined) throw notAllowed('fhirServer is a non-public address and not in fhirServers');
  const headers: Record<string, string> = { accept: 'application/fhir+json' };
  if (req.fhirAuthorization !== undefined) headers.authorization = `Bearer ${req.fhirAuthorization.access_token}`;
  let response;
  try {
    response = await request(url, {
      method: 'GET', headers, signal: options.signal, timeoutMs: options.timeoutMs, maxResponseBytes: options.maxBytes, agent,
    });
  } catch (err) {
    const refused = isFhirgateError(err) && err.cause instanceof NonPublicAddressError;
    if (refused) throw notAllowed('fhirServer resolves to a non-public address and is not in fhirServers', err);
    throw unreachable(isFhirgateError(err) ? err.code : 'request failed', err);
  } finally {
    if (agent !== proxied) agent?.destroy();
  }
  if ((response.status === 404 || response.status === 410) && isReadQuery(query)) return null;
  if (response.status !== 200) throw unobtainable(key, `the FHIR server answered ${response.status}`);
  let resource: unknown;
  try {
    resource = JSON.parse(response.body.toString('utf8'));
  } catch (err) {
    throw unobtainable(key, 'the FHIR server answered with invalid JSON', err);
  }
  const isResource = typeof resource === 'object' && resource !== null && typeof (resource as JSONObject).resourceType === 'string';
  if (!isResource) throw unobtainable(key, 'the FHIR server did not answer with a resource');
  return resource as JSONObject;
}

/**
 * Returns the prefetch the handler gets: what the client sent, plus every template key it did not send,
 * fetched from `fhirServer` (`null` when the data does not exist: a 404/410 read, or a token with no value
 * in this context). Throws `CDSError('ERR_CDS_PREFETCH', ..., 412, 'prefetch.<key>')` when data cannot be had,
 * and `CDSError('ERR_CDS_PREFETCH', ..., 412, 'fhirServer')` when `fhirServer` is not in `options.allowed`.
 */
export async function fillPrefetch(
  req: CDSHookRequest,
  templates: Readonly<Record<string, string>>,
  options: PrefetchOptions,
): Promise<Record<string, JSONObject | null>> {
  const missing = Object.entries(templates).filter(([key]) => !Object.hasOwn(req.prefetch, key));
  const fetched = await Promise.all(missing.map(async ([key, template]) => {
    const query = renderTemplate(template, req.context);
    return [key, query === null ? null : await fetchOne(key, query, req, options)] as const;
  }));
  return { ...req.prefetch, ...Object.fromEntries(fetched) };
}
