/**
 * Sandbox clients registered by JSON Web Key Set: a set given at start, or a JWKS URL fetched at every
 * assertion, the key chosen by the assertion's kid (and alg), jku checked against the registered URL.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { startServer } from '../support/test-server.js';
import { sandbox as testSandbox } from '../support/sandbox.js';
import { FORM } from './helpers.js';

const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const JWK = { ...ec.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES384', use: 'sig' };

async function tokenRequest(sandbox: Sandbox, header: Record<string, string>, key = ec.privateKey): Promise<{ status: number; body: { error?: string; error_description?: string } }> {
  const now = Math.floor(Date.now() / 1000);
  const assertion = signJWT({ alg: 'ES384', ...header }, { iss: 'backend', sub: 'backend', aud: sandbox.tokenUrl, jti: randomUUID(), iat: now, exp: now + 60 }, key);
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion });
  const res = await fetch(sandbox.tokenUrl, { method: 'POST', headers: FORM, body });
  return { status: res.status, body: (await res.json()) as { error?: string; error_description?: string } };
}

test('a client with a static set: the key of the kid verifies; an unknown kid or another signer is invalid_client', async (t) => {
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'backend', jwks: { keys: [JWK] } }] });
  assert.equal((await tokenRequest(sandbox, { kid: 'k1' })).status, 200);
  assert.equal(sandbox.stats.lastKeyId, 'k1');
  const unknown = await tokenRequest(sandbox, { kid: 'k2' });
  assert.deepEqual([unknown.status, unknown.body.error], [401, 'invalid_client']);
  assert.match(unknown.body.error_description ?? '', /no key in the client's JWKS has the kid and alg/);
  const forged = await tokenRequest(sandbox, { kid: 'k1' }, other.privateKey);
  assert.match(forged.body.error_description ?? '', /signature invalid/);
});

test('a client with a JWKS URL: fetched at every assertion; a jku naming another URL and an unreadable set are refused', async (t) => {
  let keys: unknown[] = [JWK];
  let status = 200;
  const jwks = await startServer(t, (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/jwk-set+json' });
    res.end(JSON.stringify({ keys }));
  });
  const url = `${jwks.url}/jwks.json`;
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'backend', jwks: url }] });
  assert.equal((await tokenRequest(sandbox, { kid: 'k1', jku: url })).status, 200);
  keys = [];
  assert.equal((await tokenRequest(sandbox, { kid: 'k1' })).status, 401, 'the set was fetched again');
  assert.equal(jwks.seen.length, 2);
  const wrongJku = await tokenRequest(sandbox, { kid: 'k1', jku: 'https://evil.example/jwks.json' });
  assert.match(wrongJku.body.error_description ?? '', /jku is not the JWKS URL registered for the client/);
  assert.equal(jwks.seen.length, 2, 'nothing fetched for a foreign jku');
  status = 500;
  keys = [JWK];
  assert.match((await tokenRequest(sandbox, { kid: 'k1' })).body.error_description ?? '', /JWKS could not be read/);
  status = 200;
  keys = [JWK, { kty: 'oct', pad: 'x'.repeat(70 * 1024) }];
  assert.match((await tokenRequest(sandbox, { kid: 'k1' })).body.error_description ?? '', /JWKS could not be read/, 'over 64 KiB');
});

test('startSandbox checks a jwks client: one of clientSecret, publicKey and jwks; a URL or { keys }', async () => {
  await assert.rejects(startSandbox({ clients: [{ clientId: 'a', jwks: 'ftp://x/jwks' }] }), /TypeError: startSandbox: options.clients\[0\].jwks must be an http\(s\) URL or \{ keys: \[...\] \}/);
  await assert.rejects(startSandbox({ clients: [{ clientId: 'a', jwks: { keys: 'no' } as never }] }), /options.clients\[0\].jwks/);
  await assert.rejects(startSandbox({ clients: [{ clientId: 'a', jwks: { keys: [] }, clientSecret: 's' } as never] }), /needs exactly one of clientSecret, publicKey and jwks/);
});
