import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { algorithmFor, jwkThumbprint, readKey, toPublicJWK } from '../../../src/lib/jwt/keys.js';
import { decodeBase64url, encodeBase64url } from '../../../src/lib/jwt/base64url.js';
import { decodeJWT, verifyJWT } from '../../../src/lib/jwt/verify-jwt.js';
import { signJWT } from '../../../src/lib/jwt/sign-jwt.js';
import type { JWTClaims } from '../../../src/lib/jwt/types.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
// The verifier's clock is pinned to this instant: in a grouped test process the file's tests can start
// long after its import, and the expiry checks below sit within seconds of it.
const now = Math.floor(Date.now() / 1000);
const claims = { iss: 'app', sub: 'app', aud: 'https://auth.example.org/token', jti: randomUUID(), exp: now + 240, iat: now };

const verifyWith = (key: object, extra: object = {}) => ({
  algorithms: ['RS384', 'ES384'],
  key: () => key as never,
  issuer: 'app',
  subject: 'app',
  audience: 'https://auth.example.org/token',
  maxLifetimeSeconds: 300,
  now: () => now * 1000,
  ...extra,
});

test('RFC 7638 thumbprint of the RFC\'s own example key', () => {
  const jwk = {
    kty: 'RSA',
    e: 'AQAB',
    alg: 'RS256',
    kid: '2011-04-29',
    n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  };
  assert.equal(jwkThumbprint(jwk), 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
});

test('reads PKCS#1, PKCS#8, SEC1, SPKI and JWK keys and derives the SMART algorithm', () => {
  const forms = [
    rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }),
    rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    JSON.stringify(rsa.privateKey.export({ format: 'jwk' })),
  ];
  for (const form of forms) assert.equal(algorithmFor(readKey(form)), 'RS384');
  const ecForms = [
    ec.privateKey.export({ type: 'sec1', format: 'pem' }),
    ec.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    Buffer.from(JSON.stringify(ec.privateKey.export({ format: 'jwk' }))),
  ];
  for (const form of ecForms) assert.equal(algorithmFor(readKey(form)), 'ES384');
  assert.equal(readKey(ec.publicKey.export({ type: 'spki', format: 'pem' })).type, 'public');
  assert.equal(readKey(JSON.stringify(toPublicJWK(ec.privateKey))).type, 'public');
});

test('refuses unusable keys with ERR_AUTH_KEY and never quotes them', () => {
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  assert.throws(() => algorithmFor(p256), { code: 'ERR_AUTH_KEY', message: /P-384/ });
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  assert.throws(() => algorithmFor(small), { code: 'ERR_AUTH_KEY', message: /1024 bits/ });
  const ed = generateKeyPairSync('ed25519').privateKey;
  assert.throws(() => algorithmFor(ed), { code: 'ERR_AUTH_KEY' });
  assert.throws(() => readKey('not a key'), { code: 'ERR_AUTH_KEY' });
  const broken = '-----BEGIN PRIVATE KEY-----\nc2VjcmV0LXNlY3JldA==\n-----END PRIVATE KEY-----';
  assert.throws(() => readKey(broken), (err: Error) => (err as { code?: string }).code === 'ERR_AUTH_KEY' && !err.message.includes('c2VjcmV0'));
  const encrypted = rsa.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' });
  assert.throws(() => readKey(encrypted), { code: 'ERR_AUTH_KEY', message: /encrypted/ });
  assert.throws(() => readKey('{"kty":"EC"'), { code: 'ERR_AUTH_KEY' });
  assert.throws(() => jwkThumbprint({ kty: 'XYZ' }), { code: 'ERR_AUTH_KEY' });
  assert.throws(() => jwkThumbprint({ kty: 'EC', crv: 'P-384', x: 'a' }), { code: 'ERR_AUTH_KEY', message: /"y"/ });
});

test('signs RS384 and ES384 JWTs that node:crypto verifies, EC signatures in raw r||s form', async () => {
  for (const [alg, pair] of [['RS384', rsa], ['ES384', ec]] as const) {
    const token = signJWT({ alg, kid: 'k1', jku: 'https://app.example.org/jwks' }, claims, pair.privateKey);
    const { header, payload } = decodeJWT(token);
    assert.deepEqual(header, { typ: 'JWT', alg, kid: 'k1', jku: 'https://app.example.org/jwks' });
    assert.deepEqual(payload, claims);
    if (alg === 'ES384') assert.equal(decodeBase64url(token.split('.')[2]!).length, 96);
    const verified = await verifyJWT(token, verifyWith(pair.publicKey));
    assert.equal(verified.payload.jti, claims.jti);
    const viaJwk = await verifyJWT(token, verifyWith(toPublicJWK(pair.privateKey)));
    assert.equal(viaJwk.header.kid, 'k1');
  }
});

test('verifyJWT refuses every bad token with ERR_JWT and a short reason', async () => {
  const good = signJWT({ alg: 'ES384' }, claims, ec.privateKey);
  const reject = (token: string, reason: RegExp, extra: object = {}, key: object = ec.publicKey) =>
    assert.rejects(verifyJWT(token, verifyWith(key, extra)), { code: 'ERR_JWT', message: reason });

  const unsigned = `${encodeBase64url(JSON.stringify({ alg: 'none' }))}.${encodeBase64url(JSON.stringify(claims))}.`;
  await reject(unsigned, /alg not allowed/, { algorithms: ['none', 'ES384'] });
  const hs = `${encodeBase64url(JSON.stringify({ alg: 'HS256' }))}.${encodeBase64url(JSON.stringify(claims))}.abc`;
  await reject(hs, /alg not allowed/, { algorithms: ['HS256'] });
  await reject(good, /alg not allowed/, { algorithms: ['RS384'] });
  await reject(good, /unknown key/, { key: () => undefined });
  await reject(good, /signature invalid/, {}, generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey);
  await reject(good, /key does not fit/, {}, rsa.publicKey);
  const [h, p] = good.split('.');
  const tampered = `${h}.${encodeBase64url(JSON.stringify({ ...claims, sub: 'admin' }))}.${good.split('.')[2]}`;
  await reject(tampered, /signature invalid/);
  await reject(`${h}.${p}`, /malformed/);
  await reject(`${h}.${p}.***`, /malformed|signature invalid/);
  await reject(`e30.${p}.${good.split('.')[2]}`, /malformed/);
  await reject(`WzFd.${p}.x`, /malformed/);

  const sign384 = (c: JWTClaims) => signJWT({ alg: 'ES384' }, c, ec.privateKey);
  await reject(sign384({ ...claims, exp: now - 10 }), /expired/);
  await reject(sign384({ ...claims, exp: now + 3600 }), /too far/);
  await reject(sign384({ ...claims, nbf: now + 600 }), /not yet valid/);
  await reject(sign384({ ...claims, iat: now + 600 }), /iat in the future/);
  await reject(sign384({ ...claims, exp: 'soon' as unknown as number }), /exp not a number/);
  await reject(sign384({ ...claims, aud: 'https://elsewhere.example.org/token' }), /aud mismatch/);
  await reject(sign384({ ...claims, iss: 'mallory' }), /iss not allowed/);
  await reject(sign384({ ...claims, sub: 'mallory' }), /sub mismatch/);
  const { jti: _jti, ...noJti } = claims;
  await reject(sign384(noJti), /jti missing/, { requiredClaims: ['jti'] });
  await assert.doesNotReject(verifyJWT(sign384({ ...claims, aud: ['x', claims.aud] }), verifyWith(ec.publicKey)));
  await assert.doesNotReject(verifyJWT(sign384({ ...claims, exp: now - 10 }), verifyWith(ec.publicKey, { clockToleranceSeconds: 30 })));
});

test('a signature made with a DER-encoded ECDSA signature is refused', async () => {
  const head = encodeBase64url(JSON.stringify({ alg: 'ES384' }));
  const body = encodeBase64url(JSON.stringify(claims));
  const der = sign('sha384', Buffer.from(`${head}.${body}`), createPrivateKey(ec.privateKey.export({ type: 'pkcs8', format: 'pem' })));
  await assert.rejects(verifyJWT(`${head}.${body}.${encodeBase64url(der)}`, verifyWith(ec.publicKey)), { code: 'ERR_JWT' });
});

test('base64url is strict', () => {
  assert.equal(encodeBase64url('{"alg":"ES384"}'), 'eyJhbGciOiJFUzM4NCJ9');
  assert.equal(decodeBase64url('eyJhbGciOiJFUzM4NCJ9').toString(), '{"alg":"ES384"}');
  assert.throws(() => decodeBase64url('ab+/'), { code: 'ERR_JWT' });
  assert.throws(() => decodeBase64url('abcde'), { code: 'ERR_JWT' });
  assert.throws(() => signJWT({ alg: 'PS384' }, claims, rsa.privateKey), { code: 'ERR_JWT' });
});

test('verifyJWT refuses a header with crit, whose extensions it cannot honour (RFC 7515 §4.1.11)', async () => {
  for (const crit of [['exp'], ['b64'], [], 'x']) {
    const token = signJWT({ alg: 'ES384', crit, b64: true }, claims, ec.privateKey);
    await assert.rejects(verifyJWT(token, verifyWith(ec.publicKey)), { code: 'ERR_JWT', message: 'crit not supported' });
  }
  assert.equal((await verifyJWT(signJWT({ alg: 'ES384' }, claims, ec.privateKey), verifyWith(ec.publicKey))).payload.iss, 'app');
});
