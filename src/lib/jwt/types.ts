/**
 * JWT shapes shared by signing and verification.
 * @module
 */

/** A JOSE header. */
export interface JWTHeader {
  alg: string;
  typ?: string;
  kid?: string;
  jku?: string;
  [member: string]: unknown;
}

/** JWT claims. Times are seconds since the epoch. */
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
