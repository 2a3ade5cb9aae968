// Credentials that are present and wrong are refused (401 with WWW-Authenticate), even on the open
// facade that serves anonymous reads; an issuer's tokens must name the facade as their audience (RFC 8725
// §3.9) unless the issuer says acceptAnyAudience, and may not live longer than maxTokenLifetimeSeconds.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { validateConfig } from '../../src/cli/config/validate-config.js';
import { FHIRFacade } from '../../src/facade/index.js';
import type { IssuerCallers } from '../../src/facade/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { facadeHarness } from '../support/facade-harness.js';
import { ROOT } from '../support/run-cli.js';
import { sandbox } from '../support/sandbox.js';

const AUDIENCE = 'https://gw.example.org/fhir';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwks = { keys: [{ ...toPublicJWK(publicKey), kid: 'k1', alg: 'ES256' }] };
const issuer = (iss: string, more: Partial<IssuerCallers>): IssuerCallers => ({ issuer: iss, jwks, sources: '*', scopes: 'system/*.rs', ...more });

function token(iss: string, claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  return signJWT({ alg: 'ES256', kid: 'k1' }, { iss, sub: 'svc', scope: 'system/Patient.rs', exp: now + 300, iat: now, jti: randomUUID(), ...claims }, privateKey);
}

test('the open facade: no credentials are served; Basic, a bearer with spaces, an unknown key or token are 401 with WWW-Authenticate, never served anonymously', async (t) => {
  const ehr = await sandbox(t, { open: true });
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, { openReadOnly: true });
  assert.equal((await fetch(`${h.prefix}/ehr/Patient/a-patient-1`)).status, 200, 'anonymous read, as configured');
  const before = ehr.stats.requests.total;
  const wrong: Record<string, string>[] = [
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer a b' },
    { authorization: 'Bearer' },
    { authorization: 'Digest username="x"' },
    { 'x-api-key': 'unknown-key-0123456789' },
    { authorization: 'Bearer unknown-key-0123456789' },
    { authorization: `Bearer ${token('https://idp.example.org', { aud: AUDIENCE })}` },
    { 'x-api-key': 'one-key-0123456789abc', authorization: 'Bearer another-key-0123456789' },
  ];
  for (const headers of wrong) {
    for (const path of ['ehr/Patient/a-patient-1', 'all/Patient?_count=1', 'all/Patient/ehr.a-patient-1']) {
      const res = await fetch(`${h.prefix}/${path}`, { headers });
      assert.equal(res.status, 401, `${JSON.stringify(headers)} at ${path}`);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      const body = (await res.json()) as { resourceType: string; issue: { diagnostics: string }[] };
      assert.equal(body.resourceType, 'OperationOutcome');
      // The reason (which credential failed, and how) is audited, never shown to the caller.
      assert.equal(body.issue[0]!.diagnostics, 'credentials are missing or not valid', `${JSON.stringify(headers)} at ${path}`);
    }
  }
  assert.equal(ehr.stats.requests.total, before, 'nothing went upstream');
});

test('an issuer without audience is refused at configuration (RFC 8725 §3.9) unless it says acceptAnyAudience: true', async (t) => {
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  const bare = issuer('https://idp.example.org', {});
  assert.throws(() => new FHIRFacade(gw, { callers: [bare] }), { name: 'TypeError', message: /^options\.callers\[0\] \(https:\/\/idp\.example\.org\) needs audience: .*RFC 8725 §3\.9.*acceptAnyAudience: true/ });
  assert.throws(() => validateConfig({ callers: [bare] }, { dir: ROOT, env: {} }), { code: 'ERR_CONFIG', message: /^callers\[0\] \(https:\/\/idp\.example\.org\): needs audience/ });
  assert.throws(() => new FHIRFacade(gw, { callers: [issuer('https://idp.example.org', { audience: AUDIENCE, acceptAnyAudience: true })] }), { message: /sets both audience and acceptAnyAudience/ });
  assert.doesNotThrow(() => new FHIRFacade(gw, { callers: [issuer('https://idp.example.org', { acceptAnyAudience: true })] }));
});

test('a token must hold the issuer\'s audience, unless acceptAnyAudience; a lifetime over maxTokenLifetimeSeconds (default 3600, exp - iat, or exp - now without iat) is 401', async (t) => {
  const ehr = await sandbox(t, { open: true });
  const strict = 'https://strict.example.org';
  const loose = 'https://loose.example.org';
  const long = 'https://long.example.org';
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, {
    callers: [issuer(strict, { audience: AUDIENCE }), issuer(loose, { acceptAnyAudience: true }), issuer(long, { audience: AUDIENCE, maxTokenLifetimeSeconds: 86_400 })],
  });
  const status = async (jwt: string): Promise<number> => {
    const res = await fetch(`${h.prefix}/ehr/Patient/a-patient-1`, { headers: { authorization: `Bearer ${jwt}` } });
    await res.arrayBuffer();
    return res.status;
  };
  const now = Math.floor(Date.now() / 1000);
  assert.equal(await status(token(strict, { aud: AUDIENCE })), 200);
  assert.equal(await status(token(strict, { aud: [AUDIENCE, 'https://other.example.org'] })), 200);
  assert.equal(await status(token(strict, { aud: 'https://other.example.org' })), 401, 'a token for another service');
  assert.equal(await status(token(strict, {})), 401, 'a token without aud');
  assert.equal(await status(token(loose, { aud: 'https://other.example.org' })), 200, 'acceptAnyAudience: the check is off');
  assert.equal(await status(token(strict, { aud: AUDIENCE, iat: now - 60, exp: now + 3500 })), 200, '3560 s: within the default');
  assert.equal(await status(token(strict, { aud: AUDIENCE, iat: now - 7000, exp: now + 300 })), 401, 'exp - iat is 7300 s: over 3600 though it expires soon');
  assert.equal(await status(token(strict, { aud: AUDIENCE, iat: undefined, exp: now + 7200 })), 401, 'without iat, exp - now is 7200 s');
  assert.equal(await status(token(strict, { aud: AUDIENCE, iat: undefined, exp: now + 600 })), 200);
  assert.equal(await status(token(long, { aud: AUDIENCE, iat: now, exp: now + 7200 })), 200, 'maxTokenLifetimeSeconds: 86400 allows 2 h');
  assert.equal(await status(token(long, { aud: AUDIENCE, iat: now, exp: now + 90_000 })), 401);
});
