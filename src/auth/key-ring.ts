/**
 * The keys of one JWT-assertion source: the current key signs; a next key, when one is staged, is
 * published beside it so that authorization servers know it before a rotation makes it current.
 * @module
 */
import type { KeyObject } from 'node:crypto';
import { FhirgateError } from '../errors.js';
import { requiredMembers, toPublicJWK } from '../lib/jwt/keys.js';
import type { AssertionKey } from './load-key.js';

/** The JWS algorithms an assertion may be signed with. */
export type AssertionAlg = 'RS384' | 'RS512' | 'RS256' | 'ES384';

/** A key ready to sign one assertion: the key, the algorithm chosen for the token endpoint, its `kid`. */
export interface Signer {
  readonly key: KeyObject;
  readonly alg: AssertionAlg;
  readonly kid: string;
}

/**
 * A public key as the JWKS publishes it: the key's public members only, with `kid`, `alg` and
 * `use: "sig"`.
 *
 * @example
 * ```ts
 * const jwk: PublicJWK = { kty: 'EC', crv: 'P-384', x: '…', y: '…', kid: 'k1', alg: 'ES384', use: 'sig' };
 * ```
 */
export interface PublicJWK {
  readonly kty: string;
  readonly kid: string;
  readonly alg: AssertionAlg;
  readonly use: 'sig';
  readonly [member: string]: string;
}

/**
 * What each key type may sign with, the SMART algorithm first (RS384, ES384); RSA keys may also sign
 * RS512 or RS256 for a token endpoint that takes neither SMART algorithm.
 */
const CANDIDATES: Readonly<Record<AssertionKey['alg'], readonly AssertionAlg[]>> = Object.freeze({
  RS384: Object.freeze(['RS384', 'RS512', 'RS256'] as const),
  ES384: Object.freeze(['ES384'] as const),
});

/** The algorithms `key` can sign with, preferred first. */
export function signingAlgorithms(key: AssertionKey): readonly AssertionAlg[] {
  return CANDIDATES[key.alg];
}

/**
 * The algorithm `key` signs with for a token endpoint that accepts `accepted` (its
 * `token_endpoint_auth_signing_alg_values_supported`): the first of the key's algorithms it lists, or
 * the key's SMART algorithm when the endpoint said nothing. `undefined` when it lists none of them.
 */
export function chooseAlgorithm(key: AssertionKey, accepted: readonly string[] | undefined): AssertionAlg | undefined {
  const candidates = signingAlgorithms(key);
  return accepted === undefined ? candidates[0] : candidates.find((alg) => accepted.includes(alg));
}

/** The current key of a source and, when staged, the next one. */
export class KeyRing {
  #current: AssertionKey;
  #next: AssertionKey | undefined;

  constructor(current: AssertionKey, next: AssertionKey | undefined) {
    checkDistinct(current, next);
    this.#current = current;
    this.#next = next;
  }

  /** The key that signs now. */
  get current(): AssertionKey {
    return this.#current;
  }

  /** The staged next key, if any. */
  get next(): AssertionKey | undefined {
    return this.#next;
  }

  /**
   * The current key with the algorithm for a token endpoint accepting `accepted`
   * (see {@link chooseAlgorithm}); `undefined` when the key cannot sign any of them.
   */
  signer(accepted: readonly string[] | undefined): Signer | undefined {
    const alg = chooseAlgorithm(this.#current, accepted);
    return alg === undefined ? undefined : { key: this.#current.key, alg, kid: this.#current.kid };
  }

  /**
   * Makes the next key current and stages `staged` (or nothing) as the new next key. The former current
   * key is dropped: it is no longer published. Without a next key it is `ERR_AUTH_KEY` and nothing
   * changes.
   */
  rotate(staged: AssertionKey | undefined): AssertionKey {
    const next = this.#next;
    if (next === undefined) throw new FhirgateError('ERR_AUTH_KEY', 'no next key to rotate to: give next_key_path (or the nextKeyPath option) first');
    checkDistinct(next, staged);
    this.#current = next;
    this.#next = staged;
    return next;
  }

  /**
   * The public JWKs of the current and next keys, each with the algorithm it signs with for a token
   * endpoint accepting `accepted` (its SMART algorithm when it can sign none of them).
   */
  publicJWKS(accepted: readonly string[] | undefined): PublicJWK[] {
    return [this.#current, this.#next]
      .filter((k): k is AssertionKey => k !== undefined)
      .map((k) => publicJwk(k, chooseAlgorithm(k, accepted) ?? k.alg));
  }
}

/** The key's public JWK: its required members only (RFC 7638 §3.2), nothing else is ever published. */
function publicJwk(key: AssertionKey, alg: AssertionAlg): PublicJWK {
  return { ...requiredMembers(toPublicJWK(key.key)), kid: key.kid, alg, use: 'sig' } as PublicJWK;
}

function checkDistinct(a: AssertionKey, b: AssertionKey | undefined): void {
  if (b !== undefined && a.kid === b.kid) {
    throw new FhirgateError('ERR_AUTH_KEY', `the next key has the same kid "${a.kid.slice(0, 100)}" as the current one; give it another (next_key_id)`);
  }
}
