/**
 * Assertion keys end to end: the host publishes every JWT-assertion source's current and next public
 * key at /.well-known/jwks.json; the sandbox, registered with that JWKS URL (as Epic registers one),
 * verifies the gateway's assertions against it; `rotateKey` switches keys without a restart.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { toPublicJWK, jwkThumbprint } from '../../src/lib/jwt/keys.js';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { threeKeys } from '../support/keys.js';
import { startApp } from '../support/serve.js';
import { call } from '../support/host-helpers.js';
import { sandbox } from '../support/sandbox.js';
import { gateway } from '../support/gateway-fixtures.js';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

const kidOf = (key: KeyObject): string => jwkThumbprint(toPublicJWK(key));

test('the sandbox verifies against the published JWKS; after rotateKey the new key signs and the old one is refused', async (t) => {
  const [k1, k2, k3] = threeKeys(t);
  const { gw } = gateway(t);
  const { base } = await startApp(t, { apiKeys: ['api-key'] }, (app) => app.registerGateway(gw));
  const jwksUrl = `${base}/.well-known/jwks.json`;
  const s = await sandbox(t, { clients: [{ clientId: 'backend', jwks: jwksUrl }] });
  gw.addSource('ehr', s.connectionString('backend', { keyPath: k1!.path }), { nextKeyPath: k2!.path });

  assert.equal((await gw.read('Patient', 'a-patient-1', 'ehr')).id, 'a-patient-1');
  assert.equal(s.stats.lastKeyId, kidOf(k1!.publicKey), 'the current key signed');
  const before = await call(base, '/.well-known/jwks.json');
  assert.equal(before.status, 200, 'public although API keys are on');
  assert.match(before.headers['cache-control'] ?? '', /max-age=\d+/);
  assert.deepEqual(before.json().keys.map((k: Record<string, string>) => [k.kid, k.kty, k.alg, k.use]), [
    [kidOf(k1!.publicKey), 'EC', 'ES384', 'sig'],
    [kidOf(k2!.publicKey), 'RSA', 'RS384', 'sig'],
  ]);
  for (const key of before.json().keys) for (const member of PRIVATE_MEMBERS) assert.equal(member in key, false, `${key.kty} has no ${member}`);

  assert.deepEqual(gw.rotateKey('ehr', { nextKeyPath: k3!.path }), { kid: kidOf(k2!.publicKey), alg: 'RS384' });
  s.faults.expireTokens(); // the next FHIR call gets 401, and a new token is asked for
  assert.equal((await gw.read('Patient', 'a-patient-2', 'ehr')).id, 'a-patient-2');
  assert.equal(s.stats.lastKeyId, kidOf(k2!.publicKey), 'the new key signed, and the sandbox accepted it from the JWKS');
  assert.equal(s.stats.tokenErrors, 0);
  assert.deepEqual((await call(base, '/.well-known/jwks.json')).json().keys.map((k: Record<string, string>) => k.kid), [kidOf(k2!.publicKey), kidOf(k3!.publicKey)]);

  // The retired key is no longer published, so the sandbox refuses what it signs.
  const now = Math.floor(Date.now() / 1000);
  const oldKey = createPrivateKey(readFileSync(k1!.path, 'utf8'));
  const stale = signJWT({ alg: 'ES384', kid: kidOf(k1!.publicKey) }, { iss: 'backend', sub: 'backend', aud: s.tokenUrl, jti: 'stale-1', iat: now, exp: now + 60 }, oldKey);
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: stale });
  const refused = await fetch(s.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
  assert.equal(refused.status, 401);
  assert.match(((await refused.json()) as { error_description: string }).error_description, /no key in the client's JWKS/);
});

test('next_key_path and next_key_id in the connection string; a key shared by two sources is published once', async (t) => {
  const [k1, k2] = threeKeys(t);
  const { gw } = gateway(t);
  const cs = (extra: string): string =>
    `fhir://fhir.example.org/r4/?client_id=app&client_secret_path=${encodeURIComponent(k1!.path)}&use_jwt_assertion=true&token_url=https://fhir.example.org/token${extra}`;
  gw.addSource('a', cs(`&key_id=current-1&next_key_path=${encodeURIComponent(k2!.path)}&next_key_id=next-1&jku=https://app.example.org/.well-known/jwks.json`));
  gw.addSource('b', cs(`&key_id=current-1&next_key_path=${encodeURIComponent(k2!.path)}&next_key_id=next-1`));
  gw.addSource('public', 'fhir://127.0.0.1:9/r4/');
  assert.deepEqual(gw.jwks().keys.map((k) => k.kid), ['current-1', 'next-1']);
  assert.deepEqual(gw.rotateKey('a'), { kid: 'next-1', alg: 'RS384' });
  assert.deepEqual(gw.jwks().keys.map((k) => k.kid), ['next-1', 'current-1'], "a's current key, then b's two (next-1 once)");
});

test('rotation misuse: ERR_AUTH_KEY without a next key, for a public or secret source, for a clashing kid or an unreadable file; nothing changes', async (t) => {
  const [k1, k2] = threeKeys(t);
  const { gw } = gateway(t);
  const keySource = `fhir://fhir.example.org/r4/?client_id=app&client_secret_path=${encodeURIComponent(k1!.path)}&use_jwt_assertion=true`;
  gw.addSource('key', keySource);
  gw.addSource('secret', 'fhir://fhir.example.org/r4/?client_id=app&client_secret=s3cret');
  gw.addSource('public', 'fhir://127.0.0.1:9/r4/');
  const published = JSON.stringify(gw.jwks());
  assert.throws(() => gw.rotateKey('key'), { code: 'ERR_AUTH_KEY', message: /no next key to rotate to/ });
  assert.throws(() => gw.rotateKey('secret'), { code: 'ERR_AUTH_KEY', message: /signs no JWT assertion/ });
  assert.throws(() => gw.rotateKey('public'), { code: 'ERR_AUTH_KEY', message: /public/ });
  assert.throws(() => gw.rotateKey('nope'), { code: 'ERR_UNKNOWN_SOURCE' });
  assert.equal(JSON.stringify(gw.jwks()), published);

  assert.throws(() => gw.addSource('clash', `${keySource}&key_id=same&next_key_path=${encodeURIComponent(k2!.path)}&next_key_id=same`), { code: 'ERR_AUTH_KEY', message: /same kid "same"/ });
  assert.throws(() => gw.addSource('missing', keySource, { nextKeyPath: '/no/such/key.pem' }), { code: 'ERR_AUTH_KEY', message: /cannot read the key file/ });
  assert.deepEqual(gw.sourceNames, ['key', 'secret', 'public'], 'nothing stored on failure');

  gw.addSource('pair', keySource, { nextKeyPath: k2!.path });
  assert.throws(() => gw.rotateKey('pair', { nextKeyPath: '/no/such/key.pem' }), { code: 'ERR_AUTH_KEY' });
  assert.equal(gw.jwks().keys.filter((k) => k.kty === 'RSA').length, 1, 'the next key is still staged');
  assert.equal(gw.rotateKey('pair').alg, 'RS384');
  await gw.close();
  assert.throws(() => gw.rotateKey('pair'), { code: 'ERR_CLOSED' });
});

test('option misuse of addSource and rotateKey throws TypeError naming the option', (t) => {
  const [k1, k2] = threeKeys(t);
  const { gw } = gateway(t);
  const keySource = `fhir://fhir.example.org/r4/?client_id=app&client_secret_path=${encodeURIComponent(k1!.path)}&use_jwt_assertion=true`;
  assert.throws(() => gw.addSource('a', keySource, { nextKeyPath: 42 as never }), /TypeError: addSource: options\.nextKeyPath must be a non-empty string/);
  assert.throws(() => gw.addSource('a', keySource, { nextKeyId: 'x' }), /options\.nextKeyId needs options\.nextKeyPath/);
  assert.throws(() => gw.addSource('a', keySource, null as never), /addSource: options must be an object/);
  assert.throws(() => gw.addSource('a', 'fhir://h.example.org/?client_id=a&client_secret=b', { nextKeyPath: k2!.path }), /needs a JWT assertion source/);
  assert.throws(() => gw.addSource('a', `${keySource}&next_key_path=${encodeURIComponent(k2!.path)}`, { nextKeyPath: k2!.path }), /not both/);
  gw.addSource('a', keySource, { nextKeyPath: k2!.path });
  assert.throws(() => gw.rotateKey('a', { nextKeyPath: '' }), /TypeError: rotateKey: options\.nextKeyPath must be a non-empty string/);
});
