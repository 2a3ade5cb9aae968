/**
 * Checks a discovered token endpoint against how the source authenticates: the URL must take
 * credentials (https; http only on loopback or with `allow_http=true`), the server must list the
 * client authentication method, and the assertion key must sign an algorithm it lists.
 * @module
 */
import { FhirgateError } from '../errors.js';
import type { KeyRing } from './key-ring.js';
import { signingAlgorithms } from './key-ring.js';
import { isAllowedEndpoint } from './parse-connection-string.js';
import type { SmartConfiguration } from './smart-discovery.js';

/**
 * The client authentication methods of RFC 6749 §2.3.1 and RFC 7523 the gateway uses.
 *
 * @example
 * ```ts
 * const method: TokenAuthMethod = auth.kind === 'jwt_assertion' ? 'private_key_jwt' : auth.method;
 * ```
 */
export type TokenAuthMethod = 'private_key_jwt' | 'client_secret_basic' | 'client_secret_post';

/**
 * A token endpoint the gateway may use, with the signing algorithms it accepts (`undefined`: not said).
 *
 * @example
 * ```ts
 * const endpoint: TokenEndpoint = { url: 'https://fhir.example.org/oauth2/token', signingAlgs: ['RS384', 'ES384'] };
 * ```
 */
export interface TokenEndpoint {
  readonly url: string;
  readonly signingAlgs: readonly string[] | undefined;
}

/**
 * Accepts `found` for a source that authenticates with `method` (and, for `private_key_jwt`, signs
 * with `keys`), or throws `ERR_DISCOVERY` naming the document and the reason. A server that lists no
 * methods or no algorithms is not second-guessed.
 *
 * @example
 * ```ts
 * const endpoint = checkDiscovered(found, { method: 'private_key_jwt', allowHttp: false, keys: ring });
 * ```
 */
export function checkDiscovered(found: SmartConfiguration, use: { method: TokenAuthMethod; allowHttp: boolean; keys: KeyRing | undefined }): TokenEndpoint {
  const where = `the token_endpoint from ${found.documentUrl}`;
  let url: URL;
  try {
    url = new URL(found.tokenEndpoint);
  } catch {
    return fail(`${where} is not an absolute URL`);
  }
  if (url.username !== '' || url.password !== '') fail(`${where} holds user information`);
  if (!isAllowedEndpoint(url, use.allowHttp)) fail(`${where} (${url.origin}${url.pathname}) is not https (http only for loopback hosts or with allow_http=true)`);
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
