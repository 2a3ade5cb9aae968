/**
 * Upstreams that echo the request (issue 13, item 2): a token endpoint whose `error_description` and a
 * FHIR server whose OperationOutcome `diagnostics` repeat what they were sent. No form of a credential
 * may reach `err.message`, `oauthErrorDescription`, `operationOutcome` or the host's log line.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsyncFHIRGateway } from '../../../src/gateway/index.js';
import { SecretRedactor } from '../../../src/lib/redact-secrets.js';
import { writeTestKeys } from '../../support/keys.js';
import { startServer } from '../../support/test-server.js';
import { startApp } from '../../support/serve.js';

/** Chosen so that raw, percent-, form- and JSON-encoded forms all differ. */
const SECRET = 's3cr+t %/é"x y';
const ID = 'app:1';
const formEncoded = (v: string): string => new URLSearchParams([['', v]]).toString().slice(1);
const FORMS = [
  SECRET,
  encodeURIComponent(SECRET),
  formEncoded(SECRET),
  formEncoded(SECRET).toLowerCase(),
  JSON.stringify(SECRET).slice(1, -1),
  Buffer.from(`${formEncoded(ID)}:${formEncoded(SECRET)}`).toString('base64'),
  Buffer.from(`${ID}:${SECRET}`).toString('base64'),
];

function assertClean(where: string, text: string, extra: readonly string[] = []): void {
  for (const form of [...FORMS, ...extra]) assert.ok(!text.includes(form), `${where} holds ${JSON.stringify(form)}: ${text}`);
}

/** A token endpoint that refuses every request and echoes it whole in `error_description`. */
async function echoingTokenEndpoint(t: Parameters<typeof startServer>[0]) {
  return startServer(t, (req, res, body) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'invalid_client', error_description: `got ${body} with Authorization: ${req.headers.authorization ?? 'none'}` }));
  });
}

for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
  test(`${method}: a token endpoint echoing the request puts no form of the secret in the error or the host's log`, async (t) => {
    const token = await echoingTokenEndpoint(t);
    const gw = new AsyncFHIRGateway();
    t.after(() => gw.close());
    const cs = `fhir://127.0.0.1:9/fhir?client_id=${encodeURIComponent(ID)}&client_secret=${encodeURIComponent(SECRET)}&auth_method=${method}&token_url=${encodeURIComponent(`${token.url}/token`)}`;
    gw.addSource('s', cs);
    const seen = token.seen;
    await assert.rejects(gw.read('Patient', '1'), (err: Error & { code?: string; oauthError?: string; oauthErrorDescription?: string }) => {
      assert.equal(err.code, 'ERR_AUTH_TOKEN');
      assert.equal(err.oauthError, 'invalid_client');
      assert.match(err.oauthErrorDescription ?? '', /\[redacted\]/);
      assertClean('message', err.message);
      assertClean('oauthErrorDescription', err.oauthErrorDescription ?? '');
      assert.ok((err.oauthErrorDescription ?? '').length <= 300);
      return true;
    });
    // The endpoint really did receive (and echo) the secret in the form under test.
    const sent = method === 'client_secret_post' ? seen[0]!.body : String(seen[0]!.headers.authorization);
    assert.ok(FORMS.some((f) => sent.includes(f)), sent);

    gw.transform('Patient', async (id, source) => gw.read('Patient', id, source));
    const { base, log } = await startApp(t, {}, (app) => app.registerGateway(gw));
    const answer = await fetch(`${base}/fhir/transform/Patient/1`);
    assert.equal(answer.status, 502);
    assertClean('answer', await answer.text());
    const failed = log.lines.filter((l) => l.level === 'error');
    assert.ok(failed.length > 0, 'the failure is logged');
    assertClean('log', JSON.stringify(log.lines));
  });
}

test('jwt assertion: a token endpoint echoing the form puts no part of the signed assertion in the error', async (t) => {
  const [key] = writeTestKeys(t);
  const token = await echoingTokenEndpoint(t);
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  gw.addSource('s', `fhir://127.0.0.1:9/fhir?client_id=app&client_secret_path=${encodeURIComponent(key!.path)}&use_jwt_assertion=true&token_url=${encodeURIComponent(`${token.url}/token`)}`);
  await assert.rejects(gw.read('Patient', '1'), (err: Error & { oauthErrorDescription?: string }) => {
    const assertion = new URLSearchParams(token.seen[0]!.body).get('client_assertion')!;
    assert.match(assertion, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    for (const text of [err.message, err.oauthErrorDescription ?? '']) {
      assert.ok(!text.includes(assertion), text);
      assert.ok(!text.includes(assertion.split('.')[2]!), 'not even the signature');
    }
    assert.match(err.oauthErrorDescription ?? '', /client_assertion=\[redacted\]/);
    return true;
  });
});

test('a FHIR server whose OperationOutcome echoes the bearer token: message and operationOutcome carry no form of it', async (t) => {
  const accessToken = 'tok+en/with=chars';
  const fhir = await startServer(t, (req, res) => {
    if (req.url === '/token') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    const auth = String(req.headers.authorization);
    res.writeHead(400, { 'content-type': 'application/fhir+json' });
    res.end(JSON.stringify({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'security', diagnostics: `bad header ${auth}; encoded ${encodeURIComponent(auth)}`, details: { text: auth } }],
    }));
  });
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  gw.addSource('s', `fhir://${fhir.url.slice(7)}/?client_id=app&client_secret=x1&token_url=${encodeURIComponent(`${fhir.url}/token`)}`);
  await assert.rejects(gw.read('Patient', '1'), (err: Error & { code?: string; operationOutcome?: unknown }) => {
    assert.equal(err.code, 'ERR_FHIR_HTTP');
    const forms = [accessToken, encodeURIComponent(accessToken), formEncoded(accessToken)];
    for (const text of [err.message, JSON.stringify(err.operationOutcome)]) for (const f of forms) assert.ok(!text.includes(f), `${f} in ${text}`);
    assert.match(err.message, /bad header Bearer \[redacted\]/);
    return true;
  });
});

test('SecretRedactor: every form goes, longest first, before the text is cut; an empty secret removes nothing', () => {
  const redact = new SecretRedactor({ secrets: [SECRET, undefined, ''], basic: [[ID, SECRET]] });
  const echoed = FORMS.map((f, i) => `<${i}:${f}>`).join(' ');
  assert.equal(redact.text(echoed), FORMS.map((_, i) => `<${i}:[redacted]>`).join(' '));
  // A cut right inside the secret would leave its start behind if the cut came first.
  const cut = redact.text(`aaaa${SECRET}`, 8);
  assert.equal(cut, 'aaaa[re…');
  assert.deepEqual(redact.json({ issue: [{ diagnostics: `x ${SECRET}` }], n: 1 }), { issue: [{ diagnostics: 'x [redacted]' }], n: 1 });
  assert.equal(new SecretRedactor({ secrets: [''] }).text('abc'), 'abc');
});
