/**
 * The assertion keys of a gateway's sources: a next key given as an option, rotation, and the JWK Set
 * of every source's public keys.
 * @module
 */
import { loadAssertionKey } from '../../auth/load-key.js';
import type { AssertionAlg, PublicJWK } from '../../auth/key-ring.js';
import type { AssertionKey } from '../../auth/load-key.js';
import type { SourceAuth } from '../../auth/source-config.js';
import { FhirgateError } from '../../errors.js';
import type { TLSOptions } from '../../http/tls-options.js';
import { keysOf, onlyKnownKeys } from '../../lib/options.js';
import type { Source } from './source-registry.js';

/**
 * Options of `addSource`.
 *
 * @example
 * ```ts
 * gw.addSource('epic', process.env.EPIC_FHIR!, { nextKeyPath: '/secrets/epic-2027.pem' });
 * ```
 */
export interface SourceOptions {
  /**
   * Path of the next private key of a JWT-assertion source (PEM or JWK), like `next_key_path`: published
   * in the JWKS at once, signing after `rotateKey`. Not together with `next_key_path`.
   */
  nextKeyPath?: string;
  /** The next key's `kid`, like `next_key_id`. Default: its JWK `kid`, else its RFC 7638 thumbprint. */
  nextKeyId?: string;
  /**
   * The source's TLS settings (a private CA, a client certificate), for its FHIR server, token endpoint
   * and SMART configuration; like `ca_path`, `cert_path`, `key_path` (not together with them).
   */
  tls?: TLSOptions;
}

/**
 * Options of `rotateKey`: the key to stage as the next one once the switch is made.
 *
 * @example
 * ```ts
 * gw.rotateKey('epic', { nextKeyPath: '/secrets/epic-2028.pem' });
 * ```
 */
export type RotateKeyOptions = Pick<SourceOptions, 'nextKeyPath' | 'nextKeyId'>;

/**
 * What `rotateKey` returns: the key that signs from now on.
 *
 * @example
 * ```ts
 * const { kid, alg }: RotatedKey = gw.rotateKey('epic');
 * ```
 */
export interface RotatedKey {
  readonly kid: string;
  readonly alg: AssertionAlg;
}

/**
 * A JSON Web Key Set (RFC 7517 §5) of public signing keys.
 *
 * @example
 * ```ts
 * const set: JWKSet = gw.jwks(); // { keys: [{ kty: 'EC', kid: '…', alg: 'ES384', use: 'sig', … }] }
 * ```
 */
export interface JWKSet {
  readonly keys: readonly PublicJWK[];
}

/** The keys of `addSource`'s and `rotateKey`'s options; any other is refused with the nearest of these. */
export const SOURCE_OPTION_KEYS = keysOf<SourceOptions>({ nextKeyPath: true, nextKeyId: true, tls: true });
/** The option keys of `rotateKey`: a source's keys, not its TLS settings. */
export const ROTATE_KEY_OPTION_KEYS = SOURCE_OPTION_KEYS.filter((key) => key !== 'tls');

/**
 * Checks the options of `addSource`/`rotateKey` (`TypeError` naming the option); `undefined` when no
 * next key is given.
 */
export function checkSourceOptions(options: SourceOptions | undefined, method: string): { path: string; keyId: string | undefined } | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) throw new TypeError(`${method}: options must be an object`);
  onlyKnownKeys(options, method === 'addSource' ? SOURCE_OPTION_KEYS : ROTATE_KEY_OPTION_KEYS, `${method}: options`);
  const { nextKeyPath, nextKeyId } = options;
  if (nextKeyPath !== undefined && (typeof nextKeyPath !== 'string' || nextKeyPath === '')) throw new TypeError(`${method}: options.nextKeyPath must be a non-empty string`);
  if (nextKeyId !== undefined && (typeof nextKeyId !== 'string' || nextKeyId === '')) throw new TypeError(`${method}: options.nextKeyId must be a non-empty string`);
  if (nextKeyId !== undefined && nextKeyPath === undefined) throw new TypeError(`${method}: options.nextKeyId needs options.nextKeyPath`);
  return nextKeyPath === undefined ? undefined : { path: nextKeyPath, keyId: nextKeyId };
}

/**
 * The options of `addSource`/`rotateKey`, checked, as the tail of the arguments sent to the sync
 * gateway's worker: `[]`, or one plain copy.
 */
export function keyOptionArgs(options: SourceOptions | undefined, method: string): [] | [SourceOptions] {
  const next = checkSourceOptions(options, method);
  const tls = options?.tls === undefined ? {} : { tls: options.tls };
  if (next === undefined) return options?.tls === undefined ? [] : [tls];
  return [{ nextKeyPath: next.path, ...(next.keyId === undefined ? {} : { nextKeyId: next.keyId }), ...tls }];
}

/** The connection string's auth with the next key of `addSource`'s options added. */
export function withNextKey(auth: SourceAuth, options: SourceOptions | undefined): SourceAuth {
  const next = checkSourceOptions(options, 'addSource');
  if (next === undefined) return auth;
  if (auth?.kind !== 'jwt_assertion') throw new TypeError('addSource: options.nextKeyPath needs a JWT assertion source (use_jwt_assertion=true)');
  if (auth.nextKeyPath !== undefined) throw new TypeError('addSource: give the next key as next_key_path or as options.nextKeyPath, not both');
  return { ...auth, nextKeyPath: next.path, nextKeyId: next.keyId };
}

/**
 * Switches `source` to its next key and stages the one in `options`, if any (read first: a bad file
 * changes nothing). `ERR_AUTH_KEY` for a source without assertion keys or without a next key.
 */
export function rotateSourceKey(source: Source, options: RotateKeyOptions | undefined): RotatedKey {
  const next = checkSourceOptions(options, 'rotateKey');
  if (source.tokens === undefined) throw new FhirgateError('ERR_AUTH_KEY', `source "${source.name}" is public: there is no key to rotate`);
  const staged: AssertionKey | undefined = next === undefined ? undefined : loadAssertionKey(next.path, next.keyId);
  return source.tokens.rotateKey(staged);
}

/**
 * The public keys of every source, current and next, once each (a key shared by several sources is
 * listed once).
 */
export function sourcesJWKS(sources: readonly Source[]): JWKSet {
  const seen = new Map<string, PublicJWK>();
  for (const source of sources) {
    for (const jwk of source.tokens?.publicJWKS() ?? []) seen.set(JSON.stringify(jwk), jwk);
  }
  return { keys: [...seen.values()] };
}
