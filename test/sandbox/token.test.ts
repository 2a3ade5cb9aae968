import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { test } from 'node:test';
import type { Sandbox } from '../../src/sandbox/index.js';
import { sandbox as testSandbox } from '../support/sandbox.js';
import { FORM } from './helpers.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A compact JWS signed with node:crypto (ES in the raw r||s form). */
function jwt(header: Record<string, unknown>, claims: Record<string, unknown>, key?: KeyObject): string {
  const input = `${b64(header)}.${b64(claims)}`;
  if (key === undefined) return `${input}.`;
  const signature = sign('sha384', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

function claims(sandbox: Sandbox, clientId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { iss: clientId, sub: clientId, aud: sandbox.tokenUrl, jti: randomUUID(), exp: now + 240, iat: now, ...extra };
}

async function post(sandbox: Sandbox, form: Record<string, string>, headers: Record<string, string> = FORM) {
  const res = await fetch(sandbox.tokenUrl, { method: 'POST', headers, body: new URLSearchParams(form) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function assertion(sandbox: Sandbox, token: string, extra: Record<string, string> = {}) {
  return post(sandbox, { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: token, ...extra });
}

const keyClients = [
  { clientId: 'rsa-app', publicKey: rsa.publicKey },
  { clientId: 'ec-app', publicKey: ec.publicKey.export({ format: 'jwk' }) },
  { clientId: 'fhirgate-demo', clientSecret: 'demo-secret' },
];

function oauthError(res: { status: number; text: string }, status: number, error: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(JSON.parse(res.text).error, error, res.text);
  assert.equal(typeof JSON.parse(res.text).error_description, 'string');
}

test('client_secret_post issues a no-store Bearer token with the granted scope, and the stats show it', async (t) => {
  const sandbox = await testSandbox(t, { tokenLifetimeSeconds: 120 });
  const res = await post(sandbox, { grant_type: 'client_credentials', client_id: 'fhirgate-demo', client_secret: 'demo-secret', scope: 'system/Patient.rs', audience: 'https://aud.example' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(res.text);
  assert.equal(body.token_type, 'Bearer');
  assert.equal(body.expires_in, 120);
  assert.equal(body.scope, 'system/Patient.rs');
  assert.equal(typeof body.access_token, 'string');
  const read = await fetch(`${sandbox.fhirBase}/Patient/a-patient-1`, { headers: { authorization: `Bearer ${body.access_token}` } });
  assert.equal(read.status, 200);
  assert.equal(sandbox.stats.tokenRequests, 1);
  assert.equal(sandbox.stats.tokensIssued, 1);
  assert.equal(sandbox.stats.lastAuthMethod, 'client_secret_post');
  assert.equal(sandbox.stats.lastClientId, 'fhirgate-demo');
  assert.equal(sandbox.stats.lastScope, 'system/Patient.rs');
  assert.equal(sandbox.stats.lastAudience, 'https://aud.example');
  const noScope = JSON.parse((await post(sandbox, { grant_type: 'client_credentials', client_id: 'fhirgate-demo', client_secret: 'demo-secret' })).text);
  assert.equal(noScope.scope, 'system/*.read system/*.write');
  assert.equal(sandbox.stats.lastScope, undefined);
});

test('client_secret_basic form-encodes id and secret before base64, so +, : and % survive', async (t) => {
  const clientId = 'app:1 é';
  const clientSecret = 'p+a:s%s w&rd=';
  const sandbox = await testSandbox(t, { clients: [{ clientId, clientSecret }] });
  const form = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  const basic = (id: string, secret: string): Record<string, string> => ({
    ...FORM,
    authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
  });
  const ok = await post(sandbox, { grant_type: 'client_credentials' }, basic(form(clientId), form(clientSecret)));
  assert.equal(ok.status, 200, ok.text);
  assert.equal(sandbox.stats.lastAuthMethod, 'client_secret_basic');
  assert.equal(sandbox.stats.lastClientId, clientId);
  const raw = await post(sandbox, { grant_type: 'client_credentials' }, basic(form(clientId), clientSecret));
  oauthError(raw, 401, 'invalid_client');
  assert.match(raw.headers.get('www-authenticate') ?? '', /^Basic realm=/);
  const wrong = await post(sandbox, { grant_type: 'client_credentials' }, basic(form(clientId), 'nope'));
  oauthError(wrong, 401, 'invalid_client');
  assert.ok(!wrong.text.includes('nope'));
  const garbled = await post(sandbox, { grant_type: 'client_credentials' }, { ...FORM, authorization: 'Basic !!!' });
  oauthError(garbled, 401, 'invalid_client');
  const badEscape = await post(sandbox, { grant_type: 'client_credentials' }, basic('%zz', 'x'));
  oauthError(badEscape, 401, 'invalid_client');
  const bearer = await post(sandbox, { grant_type: 'client_credentials' }, { ...FORM, authorization: 'Bearer abc' });
  oauthError(bearer, 401, 'invalid_client');
});

test('a wrong secret, an unknown client or no client authentication answer 401 invalid_client', async (t) => {
  const sandbox = await testSandbox(t);
  const wrong = await post(sandbox, { grant_type: 'client_credentials', client_id: 'fhirgate-demo', client_secret: 'guess' });
  oauthError(wrong, 401, 'invalid_client');
  assert.equal(wrong.headers.get('cache-control'), 'no-store');
  assert.ok(!wrong.text.includes('guess') && !wrong.text.includes('demo-secret'));
  oauthError(await post(sandbox, { grant_type: 'client_credentials', client_id: 'who', client_secret: 'demo-secret' }), 401, 'invalid_client');
  oauthError(await post(sandbox, { grant_type: 'client_credentials', client_secret: 'demo-secret' }), 401, 'invalid_client');
  oauthError(await post(sandbox, { grant_type: 'client_credentials', client_id: 'fhirgate-demo' }), 401, 'invalid_client');
  assert.equal(sandbox.stats.tokenErrors, 4);
  assert.equal(sandbox.stats.tokensIssued, 0);
});

test('malformed token requests answer invalid_request, unsupported_grant_type or invalid_scope', async (t) => {
  const sandbox = await testSandbox(t);
  const good = { client_id: 'fhirgate-demo', client_secret: 'demo-secret' };
  oauthError(await post(sandbox, { ...good }), 400, 'invalid_request');
  oauthError(await post(sandbox, { grant_type: 'client_credentials', ...good }, { 'content-type': 'application/json' }), 400, 'invalid_request');
  const repeated = await fetch(sandbox.tokenUrl, { method: 'POST', headers: FORM, body: 'grant_type=client_credentials&grant_type=client_credentials&client_id=fhirgate-demo&client_secret=demo-secret' });
  oauthError({ status: repeated.status, text: await repeated.text() }, 400, 'invalid_request');
  const twoMethods = await post(sandbox, { grant_type: 'client_credentials', ...good }, { ...FORM, authorization: `Basic ${Buffer.from('fhirgate-demo:demo-secret').toString('base64')}` });
  oauthError(twoMethods, 400, 'invalid_request');
  oauthError(await post(sandbox, { grant_type: 'password', ...good }), 400, 'unsupported_grant_type');
  oauthError(await post(sandbox, { grant_type: 'client_credentials', ...good, scope: 'a  b' }), 400, 'invalid_scope');
  oauthError(await post(sandbox, { grant_type: 'client_credentials', ...good, scope: 'say "hi"' }), 400, 'invalid_scope');
  const get = await fetch(sandbox.tokenUrl);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
});

test('private_key_jwt accepts RS384 and ES384 assertions from registered keys (KeyObject or JWK)', async (t) => {
  const sandbox = await testSandbox(t, { clients: keyClients });
  const rs = await assertion(sandbox, jwt({ alg: 'RS384', typ: 'JWT', kid: 'r1' }, claims(sandbox, 'rsa-app'), rsa.privateKey), { scope: 'system/*.rs' });
  assert.equal(rs.status, 200, rs.text);
  assert.equal(JSON.parse(rs.text).scope, 'system/*.rs');
  assert.equal(sandbox.stats.lastAuthMethod, 'private_key_jwt');
  assert.equal(sandbox.stats.lastClientId, 'rsa-app');
  const es = await assertion(sandbox, jwt({ alg: 'ES384', typ: 'JWT', kid: 'e1' }, claims(sandbox, 'ec-app'), ec.privateKey), { client_id: 'ec-app' });
  assert.equal(es.status, 200, es.text);
  const token = JSON.parse(es.text).access_token;
  const read = await fetch(`${sandbox.fhirBase}/Patient/a-patient-1`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(read.status, 200);
});

test('private_key_jwt refuses expired, far-future, wrong-aud, replayed, unsigned and foreign-key assertions', async (t) => {
  const sandbox = await testSandbox(t, { clients: keyClients });
  const es = { alg: 'ES384', typ: 'JWT', kid: 'e1' };
  const now = Math.floor(Date.now() / 1000);
  const refused = async (token: string, extra: Record<string, string> = {}): Promise<string> => {
    const res = await assertion(sandbox, token, extra);
    oauthError(res, 401, 'invalid_client');
    assert.ok(!res.text.includes(token));
    return JSON.parse(res.text).error_description as string;
  };
  assert.match(await refused(jwt(es, claims(sandbox, 'ec-app', { exp: now - 30 }), ec.privateKey)), /expired/);
  assert.match(await refused(jwt(es, claims(sandbox, 'ec-app', { exp: now + 600 }), ec.privateKey)), /exp/);
  assert.match(await refused(jwt(es, claims(sandbox, 'ec-app', { aud: `${sandbox.fhirBase}` }), ec.privateKey)), /aud/);
  assert.match(await refused(jwt(es, claims(sandbox, 'ec-app', { sub: 'rsa-app' }), ec.privateKey)), /sub/);
  assert.match(await refused(jwt(es, claims(sandbox, 'ec-app', { jti: undefined }), ec.privateKey)), /jti/);
  assert.match(await refused(jwt({ alg: 'none', typ: 'JWT' }, claims(sandbox, 'ec-app'))), /alg/);
  assert.match(await refused(jwt({ ...es, alg: 'HS384' }, claims(sandbox, 'ec-app'), ec.privateKey)), /alg/);
  assert.match(await refused(jwt(es, claims(sandbox, 'ec-app'), stranger.privateKey)), /signature/);
  await refused(jwt(es, claims(sandbox, 'nobody'), ec.privateKey));
  await refused(jwt(es, claims(sandbox, 'fhirgate-demo'), ec.privateKey));
  await refused(jwt(es, claims(sandbox, 'ec-app'), ec.privateKey), { client_id: 'rsa-app' });
  await refused('not.a.jwt');
  oauthError(await post(sandbox, { grant_type: 'client_credentials', client_assertion_type: 'urn:other', client_assertion: jwt(es, claims(sandbox, 'ec-app'), ec.privateKey) }), 401, 'invalid_client');
  oauthError(await post(sandbox, { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER }), 400, 'invalid_request');
  const once = jwt(es, claims(sandbox, 'ec-app'), ec.privateKey);
  assert.equal((await assertion(sandbox, once)).status, 200);
  assert.match(await refused(once), /jti/);
});

test('private_key_jwt follows SMART on the header: kid is required, typ (when present) is JWT', async (t) => {
  const sandbox = await testSandbox(t, { clients: keyClients });
  const refused = async (header: Record<string, unknown>, reason: RegExp): Promise<void> => {
    const res = await assertion(sandbox, jwt(header, claims(sandbox, 'ec-app'), ec.privateKey));
    oauthError(res, 401, 'invalid_client');
    assert.match(JSON.parse(res.text).error_description, reason);
  };
  await refused({ alg: 'ES384', typ: 'JWT' }, /kid missing/);
  await refused({ alg: 'ES384', typ: 'JWT', kid: '' }, /kid missing/);
  await refused({ alg: 'ES384', typ: 'JWT', kid: 7 }, /kid missing/);
  await refused({ alg: 'ES384', typ: 'at+jwt', kid: 'e1' }, /typ/);
  assert.equal((await assertion(sandbox, jwt({ alg: 'ES384', kid: 'e1' }, claims(sandbox, 'ec-app'), ec.privateKey))).status, 200);
  assert.equal((await assertion(sandbox, jwt({ alg: 'ES384', typ: 'jwt', kid: 'e1' }, claims(sandbox, 'ec-app'), ec.privateKey))).status, 200);
});
