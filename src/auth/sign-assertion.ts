/**
 * The SMART Backend Services client assertion (RFC 7523 JWT bearer client authentication).
 * @module
 */
import { randomUUID } from 'node:crypto';
import { signJWT } from '../lib/jwt/sign-jwt.js';
import type { Signer } from './key-ring.js';

/**
 * Seconds an assertion stays valid: 4 minutes, inside SMART's 5-minute maximum even with a minute of
 * clock skew between client and server.
 */
export const ASSERTION_LIFETIME_SECONDS = 240;

/** Who signs for whom. */
export interface AssertionClaims {
  readonly clientId: string;
  readonly tokenUrl: string;
  readonly jku: string | undefined;
}

/**
 * Signs a fresh assertion: header `alg` (the signer's), `typ: JWT`, `kid`, `jku` when given; claims
 * `iss` = `sub` = client id, `aud` = token URL, a random `jti`, `iat`, `exp` = `iat` + 240 s.
 */
export function signAssertion(key: Signer, claims: AssertionClaims, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const header = { alg: key.alg, typ: 'JWT', kid: key.kid, ...(claims.jku === undefined ? {} : { jku: claims.jku }) };
  return signJWT(
    header,
    { iss: claims.clientId, sub: claims.clientId, aud: claims.tokenUrl, jti: randomUUID(), iat, exp: iat + ASSERTION_LIFETIME_SECONDS },
    key.key,
  );
}
