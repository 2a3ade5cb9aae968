/**
 * Key loading and the facts about a key that JWTs need: which algorithm it signs with, its public JWK and
 * its RFC 7638 thumbprint.
 * @module
 */
import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { FhirgateError } from '../../errors.js';

/** Smallest RSA modulus accepted for signing (SMART Backend Services asks for 2048 bits or more). */
const MIN_RSA_BITS = 2048;

/**
 * Reads a private or public key from a PEM text (PKCS#1, PKCS#8, SEC1, SPKI, or a certificate) or a JWK
 * JSON text. Encrypted PEM keys are refused: fhirgate takes no passphrases. Failures are `ERR_AUTH_KEY`
 * and never quote the key.
 */
export function readKey(text: string | Buffer): KeyObject {
  const source = (typeof text === 'string' ? text : text.toString('utf8')).trim();
  try {
    if (source.startsWith('{')) {
      const jwk = JSON.parse(source) as JsonWebKey;
      return typeof jwk.d === 'string'
        ? createPrivateKey({ key: jwk, format: 'jwk' })
        : createPublicKey({ key: jwk, format: 'jwk' });
    }
    if (source.includes('ENCRYPTED PRIVATE KEY') || source.includes('Proc-Type: 4,ENCRYPTED')) {
      throw new FhirgateError('ERR_AUTH_KEY', 'the key is encrypted; give an unencrypted PEM or JWK');
    }
    if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(source)) return createPrivateKey(source);
    if (/-----BEGIN (PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE)-----/.test(source)) return createPublicKey(source);
  } catch (err) {
    if (err instanceof FhirgateError) throw err;
    throw new FhirgateError('ERR_AUTH_KEY', 'the key could not be parsed (expected PEM or JWK)', { cause: err });
  }
  throw new FhirgateError('ERR_AUTH_KEY', 'not a key: expected a PEM block or a JWK JSON object');
}

/**
 * The SMART Backend Services algorithm a key signs with: `RS384` for RSA (2048 bits or more), `ES384` for
 * EC P-384. Any other key is `ERR_AUTH_KEY`.
 */
export function algorithmFor(key: KeyObject): 'RS384' | 'ES384' {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') {
    if ((details.modulusLength ?? 0) < MIN_RSA_BITS) {
      throw new FhirgateError('ERR_AUTH_KEY', `RSA key of ${details.modulusLength} bits: at least ${MIN_RSA_BITS} are needed`);
    }
    return 'RS384';
  }
  if (key.asymmetricKeyType === 'ec') {
    if (details.namedCurve === 'secp384r1') return 'ES384';
    throw new FhirgateError('ERR_AUTH_KEY', `EC key on curve ${details.namedCurve}: ES384 needs P-384`);
  }
  throw new FhirgateError('ERR_AUTH_KEY', `a ${key.asymmetricKeyType ?? 'symmetric'} key cannot sign RS384 or ES384 assertions`);
}

/** The public JWK of a private or public key (private members dropped). */
export function toPublicJWK(key: KeyObject): JsonWebKey {
  return (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' });
}

/** The required members of each key type (RFC 7638 §3.2), in lexicographic order. */
const REQUIRED_MEMBERS: Record<string, readonly string[]> = {
  RSA: ['e', 'kty', 'n'],
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  oct: ['k', 'kty'],
};

/**
 * The required members of a JWK (RFC 7638 §3.2), in lexicographic order, and nothing else: what its
 * thumbprint hashes, and (for a public key) all a JWKS needs to publish of it. `ERR_AUTH_KEY` for an
 * unknown key type or a missing member.
 */
export function requiredMembers(jwk: JsonWebKey): Record<string, string> {
  const members = typeof jwk.kty === 'string' ? REQUIRED_MEMBERS[jwk.kty] : undefined;
  if (members === undefined) throw new FhirgateError('ERR_AUTH_KEY', `no thumbprint for key type ${String(jwk.kty)}`);
  const required: Record<string, string> = {};
  for (const name of members) {
    const value: unknown = jwk[name];
    if (typeof value !== 'string') throw new FhirgateError('ERR_AUTH_KEY', `JWK lacks its "${name}" member`);
    required[name] = value;
  }
  return required;
}

/**
 * The RFC 7638 thumbprint of a JWK: SHA-256 of the canonical JSON of its required members, base64url.
 * Used as the default `kid`.
 */
export function jwkThumbprint(jwk: JsonWebKey): string {
  return createHash('sha256').update(JSON.stringify(requiredMembers(jwk))).digest('base64url');
}
