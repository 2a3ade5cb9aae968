import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { loadAssertionKey } from '../../src/auth/load-key.js';
import { jwkThumbprint } from '../../src/lib/jwt/keys.js';
import { writeTemp } from '../support/keys.js';

test('a JWK file with a kid signs with that kid (the one its JWKS publishes); key_id still wins', (t) => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const path = writeTemp(t, 'key.json', JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: 'registered-2026' }));
  assert.equal(loadAssertionKey(path, undefined).kid, 'registered-2026');
  assert.equal(loadAssertionKey(path, 'override').kid, 'override');
});

test('a JWK without kid, or a PEM, gets the RFC 7638 thumbprint', (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const thumbprint = jwkThumbprint(publicKey.export({ format: 'jwk' }));
  const jwk = writeTemp(t, 'key.json', JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: '' }));
  const pem = writeTemp(t, 'key.pem', privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  assert.equal(loadAssertionKey(jwk, undefined).kid, thumbprint);
  assert.equal(loadAssertionKey(pem, undefined).kid, thumbprint);
});
