/**
 * The key that verifies a client's assertion: its registered public key, or the key of its JSON Web
 * Key Set whose `kid` the assertion names (the set given at start, or fetched from its JWKS URL at
 * every assertion).
 * @module
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { JWTHeader } from '../lib/jwt/types.js';
import type { ResolvedClient } from './options.js';

/** Largest JWKS read, in bytes. */
const JWKS_LIMIT = 64 * 1024;
/** Milliseconds a JWKS fetch may take. */
const JWKS_TIMEOUT_MS = 5_000;

/** Why no key was found, said to the client as an `invalid_client` description (never a key). */
export class KeyLookupError extends Error {}

/**
 * The public key that verifies an assertion of `client` with this `header`. Throws
 * {@link KeyLookupError} when the client's set has no usable key for it, or cannot be fetched.
 */
export async function clientKey(client: ResolvedClient, header: JWTHeader): Promise<KeyObject> {
  if (client.publicKey !== undefined) return client.publicKey;
  const jwks = client.jwks;
  if (jwks === undefined) throw new KeyLookupError('client authentication failed');
  if (typeof jwks === 'string' && header.jku !== undefined && header.jku !== jwks) throw new KeyLookupError('jku is not the JWKS URL registered for the client');
  const keys = typeof jwks === 'string' ? await fetchJwks(jwks) : jwks;
  const jwk = keys.find((k) => k.kid === header.kid && (k.alg === undefined || k.alg === header.alg) && k.use !== 'enc');
  if (jwk === undefined) throw new KeyLookupError('no key in the client\'s JWKS has the kid and alg of the assertion');
  try {
    return createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw new KeyLookupError('the JWKS key with that kid is unusable');
  }
}

function fetchJwks(url: string): Promise<JsonWebKey[]> {
  const get = url.startsWith('https:') ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const failed = (): void => reject(new KeyLookupError('the client\'s JWKS could not be read'));
    const req = get(url, { headers: { accept: 'application/jwk-set+json, application/json' }, signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > JWKS_LIMIT) req.destroy(new Error('JWKS too large'));
        else chunks.push(chunk);
      });
      res.on('error', failed);
      res.on('end', () => {
        try {
          const keys = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { keys?: unknown }).keys;
          if (res.statusCode !== 200 || !Array.isArray(keys)) return failed();
          resolve(keys.filter((k): k is JsonWebKey => typeof k === 'object' && k !== null));
        } catch {
          failed();
        }
      });
    });
    req.on('error', failed);
  });
}
