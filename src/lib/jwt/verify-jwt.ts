/**
 * Compact JWS decoding and verification with claim checks, on `node:crypto`.
 * @module
 */
import { createPublicKey, KeyObject, verify, type JsonWebKey } from 'node:crypto';
import { FhirgateError } from '../../errors.js';
import { isJSONObject } from '../json-object.js';
import { signingParams } from './algorithms.js';
import { decodeBase64url } from './base64url.js';
import type { JWTClaims, JWTHeader } from './types.js';

/** Options of {@link verifyJWT}. */
export interface VerifyJWTOptions {
  /** The `alg` values accepted. `none` and HS* are refused whatever is listed. */
  algorithms: readonly string[];
  /** Finds the verification key for a header (by `kid`, `jku`, ...); `undefined` means unknown key. */
  key: (header: JWTHeader) => KeyObject | JsonWebKey | undefined | Promise<KeyObject | JsonWebKey | undefined>;
  /** Accepted `iss` value(s). */
  issuer?: string | readonly string[];
  /** The `aud` that must be present (in a string `aud` or in an array). */
  audience?: string;
  /** The `sub` that must be present. */
  subject?: string;
  /** Leeway for `exp`, `nbf` and `iat`, in seconds. Default 0. */
  clockToleranceSeconds?: number;
  /** Refuse tokens whose `exp` lies further than this many seconds ahead. */
  maxLifetimeSeconds?: number;
  /** Refuse tokens whose whole lifetime, `exp - iat` (`exp - now` without `iat`), is longer than this many seconds. */
  maxTokenLifetimeSeconds?: number;
  /** Claims that must be present. */
  requiredClaims?: readonly string[];
  /** The clock, in milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A decoded, not yet verified, JWT. */
export interface DecodedJWT {
  header: JWTHeader;
  payload: JWTClaims;
}

function parsePart(part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decodeBase64url(part).toString('utf8'));
  } catch {
    throw new FhirgateError('ERR_JWT', 'malformed token');
  }
  if (!isJSONObject(value)) throw new FhirgateError('ERR_JWT', 'malformed token');
  return value;
}

function split(token: string): [string, string, string] {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length !== 3) throw new FhirgateError('ERR_JWT', 'malformed token');
  return parts as [string, string, string];
}

/** Decodes a JWT without verifying it (to read `kid`, `iss` or `jku` before choosing a key). */
export function decodeJWT(token: string): DecodedJWT {
  const [head, body] = split(token);
  const header = parsePart(head);
  if (typeof header.alg !== 'string') throw new FhirgateError('ERR_JWT', 'malformed token');
  return { header: header as JWTHeader, payload: parsePart(body) as JWTClaims };
}

function checkClaims(payload: JWTClaims, options: VerifyJWTOptions): void {
  const now = (options.now ?? Date.now)() / 1000;
  const leeway = options.clockToleranceSeconds ?? 0;
  for (const claim of options.requiredClaims ?? []) {
    if (payload[claim] === undefined) throw new FhirgateError('ERR_JWT', `${claim} missing`);
  }
  for (const claim of ['exp', 'nbf', 'iat'] as const) {
    if (payload[claim] !== undefined && typeof payload[claim] !== 'number') throw new FhirgateError('ERR_JWT', `${claim} not a number`);
  }
  if (payload.exp !== undefined && now > payload.exp + leeway) throw new FhirgateError('ERR_JWT', 'token expired');
  if (payload.nbf !== undefined && now < payload.nbf - leeway) throw new FhirgateError('ERR_JWT', 'token not yet valid');
  if (payload.iat !== undefined && payload.iat > now + leeway) throw new FhirgateError('ERR_JWT', 'iat in the future');
  if (options.maxLifetimeSeconds !== undefined && payload.exp !== undefined && payload.exp - now > options.maxLifetimeSeconds + leeway) {
    throw new FhirgateError('ERR_JWT', 'exp too far in the future');
  }
  if (options.maxTokenLifetimeSeconds !== undefined && payload.exp !== undefined && payload.exp - (payload.iat ?? now) > options.maxTokenLifetimeSeconds + leeway) {
    throw new FhirgateError('ERR_JWT', 'lifetime too long');
  }
  if (options.issuer !== undefined) {
    const allowed = typeof options.issuer === 'string' ? [options.issuer] : options.issuer;
    if (typeof payload.iss !== 'string' || !allowed.includes(payload.iss)) throw new FhirgateError('ERR_JWT', 'iss not allowed');
  }
  if (options.subject !== undefined && payload.sub !== options.subject) throw new FhirgateError('ERR_JWT', 'sub mismatch');
  if (options.audience !== undefined) {
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.includes(options.audience)) throw new FhirgateError('ERR_JWT', 'aud mismatch');
  }
}

/**
 * Verifies a JWT's signature and claims. Every failure is `FhirgateError('ERR_JWT', reason)` with a short
 * reason (`signature invalid`, `token expired`, `aud mismatch`, `alg not allowed`, `unknown key`,
 * `crit not supported` for any header with `crit` (RFC 7515 §4.1.11), ...):
 * log it, but answer callers with one generic message.
 */
export async function verifyJWT(token: string, options: VerifyJWTOptions): Promise<DecodedJWT> {
  const [head, body, sig] = split(token);
  const { header, payload } = decodeJWT(token);
  if (!options.algorithms.includes(header.alg) || header.alg === 'none' || header.alg.startsWith('HS')) {
    throw new FhirgateError('ERR_JWT', 'alg not allowed');
  }
  // RFC 7515 §4.1.11: extensions listed in `crit` must be understood; fhirgate understands none.
  if (header.crit !== undefined) throw new FhirgateError('ERR_JWT', 'crit not supported');
  const found = await options.key(header);
  if (found === undefined) throw new FhirgateError('ERR_JWT', 'unknown key');
  let key: KeyObject;
  try {
    key = found instanceof KeyObject ? found : createPublicKey({ key: found, format: 'jwk' });
  } catch (err) {
    throw new FhirgateError('ERR_JWT', 'unusable key', { cause: err });
  }
  const params = signingParams(header.alg, key);
  let valid = false;
  try {
    valid = verify(params.hash, Buffer.from(`${head}.${body}`), params.input, decodeBase64url(sig));
  } catch {
    valid = false;
  }
  if (!valid) throw new FhirgateError('ERR_JWT', 'signature invalid');
  checkClaims(payload, options);
  return { header, payload };
}
