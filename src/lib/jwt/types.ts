/**
 * JWT shapes shared by signing and verification.
 * @module
 */

/**
 * A JOSE header.
 *
 * @example
 * ```ts
 * const header: JWTHeader = { alg: 'ES384', typ: 'JWT', kid: 'k1', jku: 'https://app.example.org/jwks.json' };
 * ```
 */
export interface JWTHeader {
  alg: string;
  typ?: string;
  kid?: string;
  jku?: string;
  [member: string]: unknown;
}

/**
 * JWT claims. Times are seconds since the epoch.
 *
 * @example
 * ```ts
 * const claims: JWTClaims = { iss: 'app', sub: 'app', aud: tokenUrl, jti: crypto.randomUUID(), exp: now + 300 };
 * ```
 */
export interface JWTClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  nbf?: number;
  jti?: string;
  [claim: string]: unknown;
}
