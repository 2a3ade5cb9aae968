/**
 * Checks a discovered token endpoint against how the source authenticates: the URL must take
 * credentials (https; http only on loopback or with `allow_http=true`), a client secret goes only to an
 * origin the user named (the FHIR server's, or `token_origin`), the server must list the client
 * authentication method, and the assertion key must sign an algorithm it lists.
 * @module
 */
import { FhirgateError } from '../errors.js';
import type { KeyRing } from './key-ring.js';
import { signingAlgorithms } from './key-ring.js';
import { isAllowedEndpoint } from './parse-connection-string.js';
import type { SmartConfiguration } from './smart-discovery.js';

/** The client authentication methods of RFC 6749 §2.3.1 and RFC 7523 the gateway uses. */
export type TokenAuthMethod = 'private_key_jwt' | 'client_secret_basic' | 'client_secret_post';

/** A token endpoint the gateway may use, with the signing algorithms it accepts (`undefined`: not said). */
export interface TokenEndpoint {
  readonly url: string;
  readonly signingAlgs: readonly string[] | undefined;
}

/**
 * How the source will use a discovered endpoint: its authentication method, whether plain http may
 * reach a non-loopback host, its assertion keys, and the origins a client secret may be sent to.
 */
export interface EndpointUse {
  readonly method: TokenAuthMethod;
  readonly allowHttp: boolean;
  readonly keys: KeyRing | undefined;
  /** The FHIR server's origin, then `token_origin` if set: a discovered document cannot send a secret elsewhere. */
  readonly secretOrigins: readonly string[];
}

/**
 * Accepts `found` for a source that authenticates as `use` says, or throws `ERR_DISCOVERY` naming the
 * document and the reason. A client secret is never sent to an origin outside `use.secretOrigins` (a
 * signed assertion may go: it names its audience). A server that lists no methods or no algorithms is
 * not second-guessed.
 */
export function checkDiscovered(found: SmartConfiguration, use: EndpointUse): TokenEndpoint {
  const where = `the token_endpoint from ${found.documentUrl}`;
  let url: URL;
  try {
    url = new URL(found.tokenEndpoint);
  } catch {
    return fail(`${where} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`${where} is not an http(s) URL (its scheme is ${JSON.stringify(url.protocol.slice(0, 32))})`);
  if (url.username !== '' || url.password !== '') fail(`${where} holds user information`);
  if (!isAllowedEndpoint(url, use.allowHttp)) fail(`${where} (${url.origin}${url.pathname.slice(0, 200)}) is not https (http only for loopback hosts or with allow_http=true)`);
  if (use.method !== 'private_key_jwt' && !use.secretOrigins.includes(url.origin)) {
    fail(
      `${where} is on ${url.origin}, not on ${use.secretOrigins.join(' or ')}: a client secret is sent only to an origin the connection string names. ` +
        `If that server is your token endpoint, add token_origin=${encodeURIComponent(url.origin)} (or give token_url)`,
    );
  }
  const methods = found.authMethods;
  if (methods !== undefined && !methods.includes(use.method)) {
    const hint = use.method === 'client_secret_basic' && methods.includes('client_secret_post') ? '; add auth_method=client_secret_post' : '';
    fail(`${found.documentUrl} lists token_endpoint_auth_methods_supported ${list(methods)}, without ${use.method}, the method this source uses${hint}`);
  }
  if (use.keys !== undefined && use.keys.signer(found.signingAlgs) === undefined) {
    fail(`${found.documentUrl} lists token_endpoint_auth_signing_alg_values_supported ${list(found.signingAlgs ?? [])}; the key "${use.keys.current.kid.slice(0, 100)}" signs ${signingAlgorithms(use.keys.current).join(', ')}`);
  }
  return { url: url.href, signingAlgs: found.signingAlgs };
}

/** A server's list, shortened: values come from the network. */
function list(values: readonly string[]): string {
  const shown = values.slice(0, 10).map((v) => JSON.stringify(v.slice(0, 40)));
  return `[${shown.join(', ')}${values.length > 10 ? ', …' : ''}]`;
}

function fail(reason: string): never {
  throw new FhirgateError('ERR_DISCOVERY', `SMART discovery failed: ${reason}`);
}
