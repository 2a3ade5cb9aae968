/**
 * Building `fhir://` connection strings that point at a sandbox.
 * @module
 */
import { keysOf, onlyKnownKeys } from '../lib/options.js';
import type { ResolvedClient } from './options.js';

/**
 * Options of `sandbox.connectionString()`.
 *
 * @example
 * ```ts
 * sandbox.connectionString('backend', { keyPath: './keys/backend.pem', scope: 'system/*.rs' });
 * ```
 */
export interface ConnectionStringOptions {
  /** For a key client: the path of the PEM or JWK file holding its private key (required for key clients). */
  keyPath?: string;
  /** A `scope` parameter to add. Default: none (the gateway's default scope applies). */
  scope?: string;
  /** Leave `token_url` out, so that the gateway discovers it (SMART configuration). Default false. */
  discover?: boolean;
}

/** The keys of {@link ConnectionStringOptions}; any other is refused with the nearest of these. */
export const CONNECTION_STRING_OPTION_KEYS = keysOf<ConnectionStringOptions>({ keyPath: true, scope: true, discover: true });

/**
 * A `fhir://host:port/fhir/R4/?client_id=…&token_url=…` connection string for a registered client:
 * with `client_secret` for a secret client, with `client_secret_path` and `use_jwt_assertion=true` for
 * a key or JWKS client; without `token_url` when `discover` is set. Values are percent-encoded.
 *
 * @throws TypeError for a key client without `keyPath`, or a non-string option.
 */
export function buildConnectionString(
  fhirBase: string,
  tokenUrl: string,
  client: ResolvedClient,
  options: ConnectionStringOptions = {},
): string {
  if (typeof options !== 'object' || options === null) throw new TypeError('connectionString: options must be an object');
  onlyKnownKeys(options, CONNECTION_STRING_OPTION_KEYS, 'connectionString: options');
  const { keyPath, scope, discover = false } = options;
  if (typeof discover !== 'boolean') throw new TypeError('connectionString: options.discover must be a boolean');
  if (keyPath !== undefined && (typeof keyPath !== 'string' || keyPath === '')) {
    throw new TypeError('connectionString: options.keyPath must be a non-empty string');
  }
  if (scope !== undefined && typeof scope !== 'string') throw new TypeError('connectionString: options.scope must be a string');
  const params: [string, string][] = [['client_id', client.clientId]];
  if (client.clientSecret !== undefined) {
    params.push(['client_secret', client.clientSecret]);
  } else if (keyPath === undefined) {
    throw new TypeError(`connectionString: client "${client.clientId}" signs JWT assertions; pass { keyPath } to its private key`);
  } else {
    params.push(['client_secret_path', keyPath], ['use_jwt_assertion', 'true']);
  }
  if (!discover) params.push(['token_url', tokenUrl]);
  if (scope !== undefined) params.push(['scope', scope]);
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
  return `fhir://${fhirBase.replace(/^https?:\/\//, '')}/?${query}`;
}
