/**
 * SMART discovery: a source without token_url finds its token endpoint in the server's
 * `.well-known/smart-configuration` (or the CapabilityStatement's oauth-uris extension), once, and
 * refuses configurations it cannot use with ERR_DISCOVERY.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { ServerResponse } from 'node:http';
import { parseConnectionString } from '../../src/auth/index.js';
import { OAUTH_URIS_EXTENSION } from '../../src/auth/smart-discovery.js';
import { TokenManager } from '../../src/auth/token-manager.js';
import type { ClientSecretAuth } from '../../src/auth/source-config.js';
import { request } from '../../src/http/request.js';
import { decodeJWT, verifyJWT } from '../../src/lib/jwt/verify-jwt.js';
import { sandbox } from '../support/sandbox.js';
import { gateway } from '../support/gateway-fixtures.js';
import { freePort } from '../support/free-port.js';
import { startServer } from '../support/test-server.js';
import type { TestServer } from '../support/test-server.js';
import { writeTestKeys } from '../support/keys.js';

const SECRET = 'Sup3rS3cret!value';

test('a sandbox source without token_url: discovered once for 50 concurrent reads, for a secret and a key client', async (t) => {
  const [, , , ecKey] = writeTestKeys(t);
  const s = await sandbox(t, { clients: [{ clientId: 'app', clientSecret: SECRET }, { clientId: 'backend', publicKey: ecKey!.publicKey }] });
  const { gw } = gateway(t);
  const cs = s.connectionString('app', { discover: true });
  assert.doesNotMatch(cs, /token_url/);
  gw.addSource('secret', cs);
  const reads = await Promise.all(Array.from({ length: 50 }, () => gw.read('Patient', 'a-patient-1', 'secret')));
  assert.ok(reads.every((p) => p.id === 'a-patient-1'));
  assert.equal(s.stats.requests.byKind.metadata, 1, 'one discovery request');
  assert.equal(s.stats.tokenRequests, 1);
  gw.addSource('key', s.connectionString('backend', { keyPath: ecKey!.path, discover: true }));
  assert.equal((await gw.read('Patient', 'a-patient-2', 'key')).id, 'a-patient-2');
  assert.equal(s.stats.lastAuthMethod, 'private_key_jwt', 'the assertion aud was the discovered endpoint: the sandbox checks it');
  assert.equal(s.stats.requests.byKind.metadata, 2);
});

/** A FHIR server whose SMART configuration, CapabilityStatement and token endpoint a test chooses. */
interface Fault {
  smart?: (res: ServerResponse, url: string) => void;
  metadata?: (res: ServerResponse, url: string) => void;
  forms: URLSearchParams[];
}

async function faultServer(t: TestContext, fault: Fault): Promise<TestServer> {
  const srv: TestServer = await startServer(t, (req, res, body) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, value: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (path === '/r4/.well-known/smart-configuration') return fault.smart ? fault.smart(res, srv.url) : json(404, {});
    if (path === '/r4/metadata') return fault.metadata ? fault.metadata(res, srv.url) : json(404, {});
    if (path === '/auth/token') {
      fault.forms.push(new URLSearchParams(body));
      return json(200, { access_token: 'tok', token_type: 'Bearer', expires_in: 300 });
    }
    if (path === '/r4/Patient/p1') return json(200, { resourceType: 'Patient', id: 'p1' });
    return json(404, {});
  });
  return srv;
}

const sendJSON = (value: unknown, status = 200) => (res: ServerResponse): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof value === 'string' ? value : JSON.stringify(value));
};

const smartDoc = (extra: Record<string, unknown> = {}) => (res: ServerResponse, url: string): void =>
  sendJSON({ token_endpoint: `${url}/auth/token`, token_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'], ...extra })(res);

const secretSource = (srv: Pick<TestServer, 'url'>, extra = ''): string => `fhir://${srv.url.slice('http://'.length)}/r4/?client_id=app&client_secret=${SECRET}${extra}`;

async function discoveryError(t: TestContext, fault: Fault, cs: (srv: TestServer) => string = secretSource): Promise<Error & { code?: string }> {
  const srv = await faultServer(t, fault);
  const { gw } = gateway(t);
  gw.addSource('s', cs(srv));
  const err = await gw.read('Patient', 'p1').then(() => assert.fail('read succeeded'), (e: Error & { code?: string }) => e);
  assert.equal(err.code, 'ERR_DISCOVERY', err.message);
  assert.ok(!err.message.includes(SECRET), 'no secret in the message');
  assert.equal(fault.forms.length, 0, 'no token request was sent');
  return err;
}

test('404 on the SMART configuration and no oauth-uris in the CapabilityStatement: ERR_DISCOVERY naming both URLs', async (t) => {
  const err = await discoveryError(t, { forms: [], metadata: sendJSON({ resourceType: 'CapabilityStatement', rest: [{ mode: 'server' }] }) });
  assert.match(err.message, /no SMART configuration at http:\/\/127\.0\.0\.1:\d+\/r4\/\.well-known\/smart-configuration \(404\)/);
  assert.match(err.message, /CapabilityStatement at http:\/\/127\.0\.0\.1:\d+\/r4\/metadata names no token endpoint/);
});

test('404 on both documents: ERR_DISCOVERY with both statuses', async (t) => {
  const err = await discoveryError(t, { forms: [] });
  assert.match(err.message, /\(404\), and http:\/\/127\.0\.0\.1:\d+\/r4\/metadata answered 404/);
});

test('garbage JSON, a missing token_endpoint, or a method list that is not a list: ERR_DISCOVERY saying so', async (t) => {
  assert.match((await discoveryError(t, { forms: [], smart: sendJSON('{"token_endpoint": ') })).message, /smart-configuration is not a JSON object/);
  assert.match((await discoveryError(t, { forms: [], smart: sendJSON({ issuer: 'x' }) })).message, /has no token_endpoint/);
  const badList = smartDoc({ token_endpoint_auth_methods_supported: 'client_secret_basic' });
  assert.match((await discoveryError(t, { forms: [], smart: badList })).message, /token_endpoint_auth_methods_supported is not a list of strings/);
});

test('a discovered token endpoint over plain http to a non-loopback host, or with user information: ERR_DISCOVERY', async (t) => {
  const http = (res: ServerResponse): void => sendJSON({ token_endpoint: 'http://auth.example.org/token' })(res);
  assert.match((await discoveryError(t, { forms: [], smart: http })).message, /token_endpoint from .* \(http:\/\/auth\.example\.org\/token\) is not https/);
  const userinfo = (res: ServerResponse): void => sendJSON({ token_endpoint: 'https://u:p@auth.example.org/token' })(res);
  assert.match((await discoveryError(t, { forms: [], smart: userinfo })).message, /holds user information/);
  const relative = (res: ServerResponse): void => sendJSON({ token_endpoint: '/oauth2/token' })(res);
  assert.match((await discoveryError(t, { forms: [], smart: relative })).message, /token_endpoint from .* is not an absolute URL/);
});

test('a server that does not list the method the source uses: ERR_DISCOVERY, with a hint when client_secret_post would do', async (t) => {
  const postOnly = smartDoc({ token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt'] });
  const err = await discoveryError(t, { forms: [], smart: postOnly });
  assert.match(err.message, /lists token_endpoint_auth_methods_supported \["client_secret_post", "private_key_jwt"\], without client_secret_basic.*add auth_method=client_secret_post/);
  const [rsa] = writeTestKeys(t);
  const jwtSource = (srv: TestServer): string =>
    `fhir://${srv.url.slice('http://'.length)}/r4/?client_id=app&client_secret_path=${encodeURIComponent(rsa!.path)}&use_jwt_assertion=true`;
  const noJwt = smartDoc({ token_endpoint_auth_methods_supported: ['client_secret_basic'] });
  assert.match((await discoveryError(t, { forms: [], smart: noJwt }, jwtSource)).message, /without private_key_jwt, the method this source uses/);
});

test('the assertion algorithm comes from the server list: RS256 for an RSA key when RS384 is not listed; an EC key with no listed algorithm fails', async (t) => {
  const keys = writeTestKeys(t);
  const rsa = keys[1]!;
  const ec = keys[4]!;
  const fault: Fault = { forms: [], smart: smartDoc({ token_endpoint_auth_signing_alg_values_supported: ['RS256', 'ES256'] }) };
  const srv = await faultServer(t, fault);
  const { gw } = gateway(t);
  const keySource = (path: string): string => `fhir://${srv.url.slice('http://'.length)}/r4/?client_id=app&client_secret_path=${encodeURIComponent(path)}&use_jwt_assertion=true`;
  gw.addSource('rsa', keySource(rsa.path));
  assert.equal((await gw.read('Patient', 'p1', 'rsa')).id, 'p1');
  const assertion = fault.forms[0]?.get('client_assertion') ?? '';
  assert.equal(decodeJWT(assertion).header.alg, 'RS256');
  const { payload } = await verifyJWT(assertion, { algorithms: ['RS256'], key: () => rsa.publicKey, audience: `${srv.url}/auth/token` });
  assert.equal(payload.iss, 'app');
  assert.deepEqual(gw.jwks().keys.map((k) => k.alg), ['RS256'], 'the JWKS publishes the algorithm the key signs with');
  gw.addSource('ec', keySource(ec.path));
  const err = await gw.read('Patient', 'p1', 'ec').then(() => assert.fail('read succeeded'), (e: Error & { code?: string }) => e);
  assert.equal(err.code, 'ERR_DISCOVERY');
  assert.match(err.message, /token_endpoint_auth_signing_alg_values_supported \["RS256", "ES256"\]; the key ".+" signs ES384/);
});

test('fallback: no SMART configuration, the oauth-uris token of the CapabilityStatement is used', async (t) => {
  const statement = (res: ServerResponse, url: string): void => sendJSON({
    resourceType: 'CapabilityStatement',
    rest: [{ mode: 'server', security: { extension: [{ url: OAUTH_URIS_EXTENSION, extension: [{ url: 'authorize', valueUri: `${url}/auth/authorize` }, { url: 'token', valueUri: `${url}/auth/token` }] }] } }],
  })(res);
  const fault: Fault = { forms: [], metadata: statement };
  const srv = await faultServer(t, fault);
  const { gw } = gateway(t);
  gw.addSource('s', secretSource(srv));
  assert.equal((await gw.read('Patient', 'p1')).id, 'p1');
  assert.equal((await gw.read('Patient', 'p1')).id, 'p1');
  assert.deepEqual(srv.seen.map((r) => `${r.method} ${r.url}`), [
    'GET /r4/.well-known/smart-configuration',
    'GET /r4/metadata',
    'POST /auth/token',
    'GET /r4/Patient/p1',
    'GET /r4/Patient/p1',
  ]);
  assert.equal(srv.seen[0]?.headers.authorization, undefined, 'discovery sends no credentials');
  assert.match(srv.seen[2]?.headers.authorization ?? '', /^Basic /);
});

test('a failed discovery is not kept: once the server publishes its configuration, the next call succeeds', async (t) => {
  const fault: Fault = { forms: [] };
  const srv = await faultServer(t, fault);
  const { gw } = gateway(t);
  gw.addSource('s', secretSource(srv));
  await assert.rejects(gw.read('Patient', 'p1'), { code: 'ERR_DISCOVERY' });
  fault.smart = smartDoc();
  assert.equal((await gw.read('Patient', 'p1')).id, 'p1');
  assert.equal(fault.forms.length, 1);
});

test('the sandbox serves its SMART configuration and oauth-uris in its CapabilityStatement', async (t) => {
  const s = await sandbox(t);
  const config = (await (await fetch(`${s.fhirBase}/.well-known/smart-configuration`)).json()) as Record<string, unknown>;
  assert.equal(config.token_endpoint, s.tokenUrl);
  assert.deepEqual(config.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'private_key_jwt']);
  assert.deepEqual(config.token_endpoint_auth_signing_alg_values_supported, ['RS384', 'ES384']);
  const statement = (await (await fetch(`${s.fhirBase}/metadata`)).json()) as { rest: { security: { extension: { url: string; extension: { url: string; valueUri: string }[] }[] } }[] };
  const uris = statement.rest[0]?.security.extension.find((e) => e.url === OAUTH_URIS_EXTENSION);
  assert.equal(uris?.extension.find((e) => e.url === 'token')?.valueUri, s.tokenUrl);
});

test('an unreachable server: ERR_DISCOVERY naming the URL and the transport error; a TokenManager without token_url needs the discovery option', async (t) => {
  // A port nothing listens on and that no port-0 server is given meanwhile: a port merely closed may go to another
  // test process's server, which would receive this read (and this test would read its answer).
  const cs = secretSource({ url: `http://127.0.0.1:${await freePort()}` });
  const { gw } = gateway(t, { retry: false });
  gw.addSource('s', cs);
  const err = await gw.read('Patient', 'p1').then(() => assert.fail('read succeeded'), (e: Error & { code?: string }) => e);
  assert.equal(err.code, 'ERR_DISCOVERY');
  assert.match(err.message, /reading http:\/\/127\.0\.0\.1:\d+\/r4\/\.well-known\/smart-configuration failed: ERR_NETWORK/);
  assert.ok(!err.message.includes(SECRET));
  const auth = parseConnectionString(cs).auth as ClientSecretAuth;
  assert.throws(() => new TokenManager(auth, { send: (url, o) => request(url, o), timeoutMs: 1000 }), /TypeError: TokenManager: options\.discovery is needed/);
});

test('rotateKey refuses a next key that signs no algorithm the discovered endpoint accepts, and changes nothing', async (t) => {
  const keys = writeTestKeys(t);
  const [rsa, ec] = [keys[0]!, keys[3]!];
  const fault: Fault = { forms: [], smart: smartDoc({ token_endpoint_auth_signing_alg_values_supported: ['ES384'] }) };
  const srv = await faultServer(t, fault);
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice('http://'.length)}/r4/?client_id=app&client_secret_path=${encodeURIComponent(ec.path)}&use_jwt_assertion=true`, { nextKeyPath: rsa.path });
  const before = JSON.stringify(gw.jwks());
  assert.equal(gw.jwks().keys.length, 2);
  assert.equal((await gw.read('Patient', 'p1')).id, 'p1');
  assert.throws(() => gw.rotateKey('s'), { code: 'ERR_AUTH_KEY', message: /the next key ".+" signs no algorithm the token endpoint accepts/ });
  assert.equal(JSON.stringify(gw.jwks()), before);
  assert.equal(decodeJWT(fault.forms[0]?.get('client_assertion') ?? '').header.alg, 'ES384');
});

/** A token endpoint on an origin of its own (another port): records what it is sent. */
async function foreignTokenServer(t: TestContext): Promise<TestServer> {
  return startServer(t, (_req, res) => sendJSON({ access_token: 'foreign-tok', token_type: 'Bearer', expires_in: 300 })(res));
}

test('a discovered token endpoint on another origin receives no client secret (basic or post) unless token_origin names that origin', async (t) => {
  const foreign = await foreignTokenServer(t);
  const elsewhere = (res: ServerResponse): void => sendJSON({ token_endpoint: `${foreign.url}/token`, token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'] })(res);
  for (const extra of ['', '&auth_method=client_secret_post']) {
    const err = await discoveryError(t, { forms: [], smart: elsewhere }, (srv) => secretSource(srv, extra));
    assert.match(err.message, new RegExp(`token_endpoint from http://127\\.0\\.0\\.1:\\d+/r4/\\.well-known/smart-configuration is on ${foreign.url}, not on http://127\\.0\\.0\\.1:\\d+: a client secret is sent only to an origin the connection string names`));
    assert.match(err.message, new RegExp(`add token_origin=${encodeURIComponent(foreign.url).replace(/\./g, '\\.')}`));
  }
  assert.equal(foreign.seen.length, 0, 'the foreign origin received nothing');

  const fault: Fault = { forms: [], smart: elsewhere };
  const srv = await faultServer(t, fault);
  const { gw } = gateway(t);
  gw.addSource('allowed', secretSource(srv, `&token_origin=${encodeURIComponent(foreign.url)}`));
  assert.equal((await gw.read('Patient', 'p1', 'allowed')).id, 'p1');
  assert.equal(foreign.seen.length, 1, 'named with token_origin, the endpoint gets the token request');
  const basic = Buffer.from((foreign.seen[0]?.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
  assert.deepEqual(basic.split(':').map((part) => decodeURIComponent(part.replace(/\+/g, ' '))), ['app', SECRET]);
});

test('a JWT assertion may go to a discovered token endpoint on another origin: it is bound to that audience', async (t) => {
  const [rsa] = writeTestKeys(t);
  const foreign = await foreignTokenServer(t);
  const fault: Fault = { forms: [], smart: (res) => sendJSON({ token_endpoint: `${foreign.url}/token` })(res) };
  const srv = await faultServer(t, fault);
  const { gw } = gateway(t);
  gw.addSource('jwt', `fhir://${srv.url.slice('http://'.length)}/r4/?client_id=app&client_secret_path=${encodeURIComponent(rsa!.path)}&use_jwt_assertion=true`);
  assert.equal((await gw.read('Patient', 'p1', 'jwt')).id, 'p1');
  assert.equal(foreign.seen.length, 1);
  const assertion = new URLSearchParams(foreign.seen[0]!.body).get('client_assertion') ?? '';
  assert.equal(decodeJWT(assertion).payload.aud, `${foreign.url}/token`);
  assert.equal(foreign.seen[0]?.headers.authorization, undefined);
});

test('a token_endpoint that is not http(s) (javascript:, data:) is refused naming its scheme', async (t) => {
  for (const [endpoint, scheme] of [['javascript:alert(1)', 'javascript:'], ['data:text/plain,x', 'data:']] as const) {
    const err = await discoveryError(t, { forms: [], smart: (res) => sendJSON({ token_endpoint: endpoint })(res) });
    assert.match(err.message, new RegExp(`token_endpoint from .* is not an http\\(s\\) URL \\(its scheme is "${scheme}"\\)$`));
    assert.doesNotMatch(err.message, /null/);
  }
});
