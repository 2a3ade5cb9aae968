/**
 * Loads the private key of a JWT-assertion source, once, when the source is added.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { FhirgateError } from '../errors.js';
import { algorithmFor, jwkThumbprint, readKey, toPublicJWK } from '../lib/jwt/keys.js';

/** A private key ready to sign assertions, with its algorithm and `kid`. */
export interface AssertionKey {
  readonly key: KeyObject;
  readonly alg: 'RS384' | 'ES384';
  readonly kid: string;
}

/**
 * Reads the key file at `path` (PEM PKCS#1, PKCS#8 or SEC1, or a JWK) and derives the algorithm from
 * the key: RS384 for RSA, ES384 for EC P-384. A public key, another key type, or a JWK whose `alg`
 * says otherwise is `ERR_AUTH_KEY`. `kid` is `keyId` when given, else the JWK's own `kid` (the one its
 * JWKS publishes), else the RFC 7638 thumbprint.
 */
export function loadAssertionKey(path: string, keyId: string | undefined): AssertionKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new FhirgateError('ERR_AUTH_KEY', `cannot read the key file given as client_secret_path (${codeOf(cause)})`, { cause });
  }
  const key = readKey(text);
  if (key.type !== 'private') throw new FhirgateError('ERR_AUTH_KEY', 'client_secret_path holds a public key; a private key is needed');
  const alg = algorithmFor(key);
  const declared = declaredMembers(text);
  if (declared.alg !== undefined && declared.alg !== alg) {
    throw new FhirgateError('ERR_AUTH_KEY', `the JWK says alg ${declared.alg}, but its key signs ${alg}`);
  }
  return { key, alg, kid: keyId ?? declared.kid ?? jwkThumbprint(toPublicJWK(key)) };
}

/** The `alg` and `kid` a JWK file declares (none for PEM). */
function declaredMembers(text: string): { alg?: string; kid?: string } {
  if (!text.trimStart().startsWith('{')) return {};
  const { alg, kid } = JSON.parse(text) as { alg?: unknown; kid?: unknown };
  return {
    ...(typeof alg === 'string' ? { alg } : {}),
    ...(typeof kid === 'string' && kid !== '' ? { kid } : {}),
  };
}

function codeOf(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}
