/**
 * Fuzz: the sandbox's token endpoint. Random and mutated token requests (form bodies, Basic credentials,
 * client assertions, content types) are answered 200 with a token or 400/401 with an OAuth error;
 * never 500, and the endpoint keeps issuing tokens.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { signJWT } from '../../src/lib/jwt/sign-jwt.js';
import { runFuzz } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { rawExchange } from './lib/raw-http.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface TokenRequest {
  headers: string[];
  body: Buffer;
}

function basic(rng: Random): string {
  const pair = rng.pick(['fhirgate-demo:demo-secret', 'fhirgate-demo:wrong', 'nobody:x', 'no-colon', ':', 'fhirgate-demo:%zz', `${rng.string(8)}:${rng.string(8)}`]);
  const encoded = Buffer.from(pair).toString('base64');
  // Control characters are left out: Node's own parser refuses them before the sandbox sees the request.
  const value = rng.chance(0.8) ? encoded : rng.mutate(encoded).replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '');
  return `Authorization: ${rng.pick(['Basic', 'basic', 'Bearer', 'Basic  '])} ${value}`;
}

function generate(rng: Random, tokenUrl: string): TokenRequest {
  const assertion = signJWT({ alg: 'ES384', typ: 'JWT', kid: 'k1' }, {
    iss: 'key-app', sub: 'key-app', aud: tokenUrl, jti: randomUUID(), exp: Math.floor(Date.now() / 1000) + 120,
  }, ec.privateKey);
  const form = new URLSearchParams();
  if (rng.chance(0.9)) form.set('grant_type', rng.chance(0.9) ? 'client_credentials' : rng.string(10));
  if (rng.chance(0.5)) form.set('scope', rng.chance(0.8) ? 'system/*.read' : rng.string(20));
  switch (rng.int(3)) {
    case 0: form.set('client_id', 'fhirgate-demo'); form.set('client_secret', rng.chance(0.7) ? 'demo-secret' : rng.string(12)); break;
    case 1:
      form.set('client_assertion_type', rng.chance(0.9) ? JWT_BEARER : rng.string(10));
      form.set('client_assertion', rng.chance(0.6) ? assertion : rng.mutate(assertion));
      break;
    default: break;
  }
  let text = form.toString();
  if (rng.chance(0.3)) text = rng.mutate(text);
  const body = Buffer.from(text);
  const headers = ['Host: sandbox', 'Connection: close', `Content-Length: ${body.length}`];
  const formType = rng.pick(['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8', 'Application/X-WWW-Form-Urlencoded']);
  if (rng.chance(0.95)) headers.push(`Content-Type: ${rng.chance(0.85) ? formType : rng.pick(['application/json', 'text/plain', ''])}`);
  if (rng.chance(0.3)) headers.push(basic(rng));
  return { headers, body };
}

test('the sandbox token endpoint answers random token requests with a token or an OAuth error, never a 500', async (t) => {
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'fhirgate-demo', clientSecret: 'demo-secret' }, { clientId: 'key-app', publicKey: ec.publicKey }] });
  const url = new URL(sandbox.tokenUrl);
  const send = ({ headers, body }: TokenRequest) =>
    rawExchange(Number(url.port), Buffer.concat([Buffer.from(`POST ${url.pathname} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`), body]));
  await runFuzz({ seed: 0x70c3, iterations: 600 }, {
    generate: (rng) => generate(rng, sandbox.tokenUrl),
    async check(req) {
      const answer = await send(req);
      assert.ok([200, 400, 401, 415].includes(answer.status), `status ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
      const body = JSON.parse(answer.body.toString('utf8')) as { access_token?: string; error?: string };
      if (answer.status === 200) assert.equal(typeof body.access_token, 'string');
      else assert.match(body.error ?? '', /^[a-z_]+$/);
    },
  });
  const form = 'grant_type=client_credentials&client_id=fhirgate-demo&client_secret=demo-secret';
  const last = await send({ headers: ['Host: sandbox', 'Connection: close', 'Content-Type: application/x-www-form-urlencoded', `Content-Length: ${form.length}`], body: Buffer.from(form) });
  assert.equal(last.status, 200);
});
