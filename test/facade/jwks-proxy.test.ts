// The facade's JWT issuers' JWKS (`jwksUrl`) are fetched through the outbound proxy: the library's
// `proxy` option of FHIRFacade, and `fhirgate serve` with HTTP_PROXY. A real tinyproxy on loopback shows
// which requests went through it.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { FHIRFacade } from '../../src/facade/index.js';
import type { IssuerCallers } from '../../src/facade/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { facadeHarness } from '../support/facade-harness.js';
import { startCli, tempDir, waitServing } from '../support/run-cli.js';
import { sandbox } from '../support/sandbox.js';
import { startServer } from '../support/test-server.js';
import { tinyproxy } from '../support/tinyproxy.js';

const ISSUER = 'https://idp.example.org';
const AUDIENCE = 'https://gw.example.org/fhir';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...toPublicJWK(publicKey), kid: 'k1', alg: 'ES256' };

function token(): string {
  const now = Math.floor(Date.now() / 1000);
  return signJWT({ alg: 'ES256', kid: 'k1' }, { iss: ISSUER, aud: AUDIENCE, sub: 'app-1', scope: 'system/Patient.rs', exp: now + 300, iat: now, jti: randomUUID() }, privateKey);
}

/** A JWKS server on loopback; what it was asked, with the `via` header a proxy adds. */
async function jwksServer(t: TestContext) {
  const server = await startServer(t, (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  return { url: `${server.url}/jwks.json`, seen: server.seen };
}

const issuer = (jwksUrl: string): IssuerCallers => ({ issuer: ISSUER, jwksUrl, audience: AUDIENCE, sources: '*', scopes: 'system/*.rs' });

test('FHIRFacade({ proxy }): an issuer\'s JWKS is fetched through the proxy, and the token verifies', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sb = await sandbox(t, { open: true });
  const jwks = await jwksServer(t);
  const h = await facadeHarness(t, { ehr: sb.connectionString() }, { callers: [issuer(jwks.url)], proxy: { http: proxy.url } });
  const res = await fetch(`${h.prefix}/ehr/Patient/a-patient-1`, { headers: { authorization: `Bearer ${token()}` } });
  assert.equal(res.status, 200);
  assert.deepEqual(proxy.requests(), [`GET ${jwks.url} HTTP/1.1`]);
  assert.equal(jwks.seen.length, 1);
  assert.match(String(jwks.seen[0]!.headers.via), /tinyproxy/, 'the JWKS server was asked by the proxy');
});

test('FHIRFacade without proxy fetches the JWKS directly; a bad proxy option is a TypeError naming it', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sb = await sandbox(t, { open: true });
  const jwks = await jwksServer(t);
  const h = await facadeHarness(t, { ehr: sb.connectionString() }, { callers: [issuer(jwks.url)] });
  const res = await fetch(`${h.prefix}/ehr/Patient/a-patient-1`, { headers: { authorization: `Bearer ${token()}` } });
  assert.equal(res.status, 200);
  assert.deepEqual(proxy.requests(), []);
  assert.equal(jwks.seen[0]!.headers.via, undefined);
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  assert.throws(() => new FHIRFacade(gw, { proxy: { http: 'ftp://proxy.example.org' } }), (e: Error) => e instanceof TypeError && /options\.proxy/.test(e.message));
  assert.throws(() => new FHIRFacade(gw, { proxi: { http: proxy.url } } as never), /options\.proxi is not an option; did you mean `proxy`\?/);
});

test('fhirgate serve with HTTP_PROXY fetches the facade issuers\' JWKS through the proxy', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sb = await sandbox(t, { open: true });
  const jwks = await jwksServer(t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: sb.connectionString() }, callers: [issuer(jwks.url)] }));
  // The source is reached directly (NO_PROXY names its port), so that the proxy's log holds the JWKS fetch alone.
  const run = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json'), '--port', '0'], { HTTP_PROXY: proxy.url, NO_PROXY: `127.0.0.1:${new URL(sb.fhirBase).port}` });
  const serving = await waitServing(run);
  const res = await fetch(`${serving.gateway}/ehr/Patient/a-patient-1`, { headers: { authorization: `Bearer ${token()}` } });
  assert.equal(res.status, 200);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  assert.deepEqual(proxy.requests(), [`GET ${jwks.url} HTTP/1.1`]);
});
