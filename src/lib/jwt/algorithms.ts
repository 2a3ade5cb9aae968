/**
 * The JWS algorithms fhirgate signs and verifies, and the key each one needs. `none` and the HMAC
 * family are deliberately absent: a shared secret has no place in SMART or CDS Hooks client
 * authentication.
 * @module
 */
import type { KeyObject } from 'node:crypto';
import { FhirgateError } from '../../errors.js';

interface AlgorithmSpec {
  hash: 'sha256' | 'sha384' | 'sha512';
  keyType: 'rsa' | 'ec';
  curve?: string;
}

const ALGORITHMS: Readonly<Record<string, AlgorithmSpec>> = Object.freeze({
  RS256: { hash: 'sha256', keyType: 'rsa' },
  RS384: { hash: 'sha384', keyType: 'rsa' },
  RS512: { hash: 'sha512', keyType: 'rsa' },
  ES256: { hash: 'sha256', keyType: 'ec', curve: 'prime256v1' },
  ES384: { hash: 'sha384', keyType: 'ec', curve: 'secp384r1' },
  ES512: { hash: 'sha512', keyType: 'ec', curve: 'secp521r1' },
});

/** Parameters for `crypto.sign`/`crypto.verify` with `alg`, after checking that `key` fits it. */
export function signingParams(alg: string, key: KeyObject): { hash: string; input: { key: KeyObject; dsaEncoding?: 'ieee-p1363' } } {
  const spec = Object.hasOwn(ALGORITHMS, alg) ? ALGORITHMS[alg] : undefined;
  if (spec === undefined) throw new FhirgateError('ERR_JWT', 'alg not allowed');
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== spec.keyType || (spec.curve !== undefined && curve !== spec.curve)) {
    throw new FhirgateError('ERR_JWT', `key does not fit alg ${alg}`);
  }
  return { hash: spec.hash, input: spec.keyType === 'ec' ? { key, dsaEncoding: 'ieee-p1363' } : { key } };
}
