/**
 * Compact JWS signing on `node:crypto`.
 * @module
 */
import { sign, type KeyObject } from 'node:crypto';
import { signingParams } from './algorithms.js';
import { encodeBase64url } from './base64url.js';
import type { JWTClaims, JWTHeader } from './types.js';

/**
 * Signs `claims` with `key` and returns the compact JWT. `header.alg` picks the algorithm (RS256/384/512,
 * ES256/384/512; EC signatures in the raw `r||s` form JWS requires); `typ` defaults to `JWT`.
 */
export function signJWT(header: JWTHeader, claims: JWTClaims, key: KeyObject): string {
  const params = signingParams(header.alg, key);
  const head = encodeBase64url(JSON.stringify({ typ: 'JWT', ...header }));
  const body = encodeBase64url(JSON.stringify(claims));
  const input = `${head}.${body}`;
  const signature = sign(params.hash, Buffer.from(input), params.input);
  return `${input}.${encodeBase64url(signature)}`;
}
