/**
 * Test helper: a CDS client that owns an EC P-384 key (or RSA), serves its JWKS on loopback and signs
 * the JWTs CDS Hooks 2.0 asks for.
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { encodeBase64url } from '../../src/lib/jwt/base64url.js';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import type { JWTClaims, JWTHeader } from '../../src/lib/jwt/types.js';

export interface TestKey {
  kid: string;
  alg: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

export function makeKey(kind: 'ec' | 'rsa' = 'ec', kid: string = randomUUID()): TestKey {
  const { privateKey } = kind === 'ec'
    ? generateKeyPairSync('ec', { namedCurve: 'secp384r1' })
    : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, alg: kind === 'ec' ? 'ES384' : 'RS384', privateKey, jwk: { ...toPublicJWK(privateKey), kid, use: 'sig' } };
}

export interface CdsClient {
  issuer: string;
  jwksUrl: string;
  /** The keys published at `jwksUrl`; change it to rotate. */
  published: TestKey[];
  /** How many times the JWKS was fetched. */
  fetches: number;
  /** The `traceparent` header of each JWKS fetch. */
  traceparents: (string | undefined)[];
  key: TestKey;
  token(aud: string, claims?: JWTClaims, header?: Partial<JWTHeader>, key?: TestKey): string;
}

export async function startCdsClient(t: Pick<TestContext, 'after'>, issuer = 'https://ehr.example.org'): Promise<CdsClient> {
  const key = makeKey('ec');
  const client: CdsClient = {
    issuer,
    jwksUrl: '',
    published: [key],
    fetches: 0,
    traceparents: [],
    key,
    token(aud, claims = {}, header = {}, signer = client.key) {
      const now = Math.floor(Date.now() / 1000);
      return signJWT(
        { alg: signer.alg, typ: 'JWT', kid: signer.kid, jku: client.jwksUrl, ...header },
        { iss: issuer, sub: 'ehr-client', aud, iat: now, exp: now + 60, jti: randomUUID(), ...claims },
        signer.privateKey,
      );
    },
  };
  const server = http.createServer((req, res) => {
    client.fetches += 1;
    const header = req.headers.traceparent;
    client.traceparents.push(typeof header === 'string' ? header : undefined);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: client.published.map((k) => k.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  client.jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  return client;
}

/** An unsigned token (`alg: none`) or any hand-made token. */
export function rawToken(header: Record<string, unknown>, claims: Record<string, unknown>, signature = ''): string {
  return `${encodeBase64url(JSON.stringify(header))}.${encodeBase64url(JSON.stringify(claims))}.${signature}`;
}
