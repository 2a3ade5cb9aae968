/**
 * Fuzz: `decodeJWT` and `verifyJWT` on mutated compact tokens, and on well-signed tokens whose header and
 * payload are random or mutated JSON (so that claim checking sees every kind of value). Only `ERR_JWT`
 * or success. Regression: the key resolver hands back `toPublicJWK(publicKey)`, which threw a raw
 * `TypeError` for public keys before the fix in `src/jose/keys.ts`.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { decodeJWT, verifyJWT } from '../../src/lib/jwt/verify-jwt.js';
import { encodeBase64url } from '../../src/lib/jwt/base64url.js';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import type { VerifyJWTOptions } from '../../src/lib/jwt/verify-jwt.js';
import { fuzz, settle } from './lib/fuzz.js';
import type { Random } from './lib/random.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const NOW_S = 1_800_000_000;
const CLAIMS = { iss: 'app', sub: 'app', aud: 'https://auth.example.org/token', jti: 'j1', exp: NOW_S + 200, iat: NOW_S - 5, nbf: NOW_S - 5 };
const SIGNERS: readonly { alg: string; kid: string; key: KeyObject }[] = [
  { alg: 'RS384', kid: 'rsa', key: rsa.privateKey },
  { alg: 'ES384', kid: 'ec', key: ec.privateKey },
  { alg: 'ES384', kid: 'jwk', key: ec.privateKey },
];

const OPTIONS: VerifyJWTOptions = {
  algorithms: ['RS384', 'ES384', 'ES256', 'RS256'],
  key: (header) => (header.kid === 'rsa' ? rsa.publicKey : header.kid === 'ec' ? ec.publicKey : header.kid === 'jwk' ? toPublicJWK(ec.publicKey) : undefined),
  issuer: ['app', 'other'],
  subject: 'app',
  audience: 'https://auth.example.org/token',
  maxLifetimeSeconds: 300,
  requiredClaims: ['jti'],
  clockToleranceSeconds: 5,
  now: () => NOW_S * 1000,
};

/** Signs arbitrary header and payload text, so that the signature is valid whatever the JSON says. */
function signRaw(headerText: string, payloadText: string, signer: (typeof SIGNERS)[number]): string {
  const input = `${encodeBase64url(headerText)}.${encodeBase64url(payloadText)}`;
  const ecKey = signer.key.asymmetricKeyType === 'ec';
  const signature = sign('sha384', Buffer.from(input), ecKey ? { key: signer.key, dsaEncoding: 'ieee-p1363' } : signer.key);
  return `${input}.${encodeBase64url(signature)}`;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** One good token per signer, signed once: mutations start from these. */
const GOOD_TOKENS = SIGNERS.map((s) => signJWT({ alg: s.alg, typ: 'JWT', kid: s.kid }, CLAIMS, s.key));

function mutatedToken(rng: Random): string {
  const token = rng.pick(GOOD_TOKENS);
  switch (rng.int(4)) {
    case 0: return rng.mutate(token);
    case 1: {
      const parts = token.split('.');
      const i = rng.int(3);
      parts[i] = rng.chance(0.5) ? rng.string(rng.size(80), BASE64URL) : rng.mutate(parts[i] as string, 1);
      return parts.join(rng.chance(0.9) ? '.' : rng.pick(['..', '', '.=']));
    }
    case 2: return rng.string(rng.size(200), `${BASE64URL}.=+/ `);
    default: return token.split('.').slice(0, rng.int(3)).concat(Array.from({ length: rng.int(3) }, () => rng.string(8, BASE64URL))).join('.');
  }
}

function resignedToken(rng: Random): string {
  const signer = rng.pick(SIGNERS);
  const header = rng.chance(0.8) ? rng.mutateJson({ alg: signer.alg, typ: 'JWT', kid: signer.kid }, 1) : rng.json();
  const payload = rng.chance(0.85) ? rng.mutateJson(CLAIMS) : rng.json();
  const text = (v: unknown): string => (rng.chance(0.05) ? rng.string() : JSON.stringify(v) ?? 'null');
  return signRaw(text(header), text(payload), signer);
}

fuzz('decodeJWT and verifyJWT answer mutated tokens with ERR_JWT only', { seed: 0x1a7, iterations: 2000 }, {
  generate: mutatedToken,
  async check(token) {
    await settle(['ERR_JWT'], () => decodeJWT(token));
    const verified = await settle(['ERR_JWT'], () => verifyJWT(token, OPTIONS));
    if (verified.ok) assert.deepEqual(verified.value.payload, CLAIMS, 'only a well-signed token verifies');
  },
});

fuzz('verifyJWT answers well-signed tokens with random headers and claims with ERR_JWT only', { seed: 0x5e1, iterations: 800 }, {
  generate: resignedToken,
  async check(token) {
    const verified = await settle(['ERR_JWT'], () => verifyJWT(token, OPTIONS));
    if (!verified.ok) return;
    const { payload } = verified.value;
    assert.equal(payload.sub, 'app');
    assert.ok(['app', 'other'].includes(payload.iss as string));
    assert.equal(typeof payload.jti === 'undefined', false);
  },
});
