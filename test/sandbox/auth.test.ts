import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sandbox as testSandbox } from '../support/sandbox.js';
import { tokenFor } from './helpers.js';

test('FHIR endpoints answer 401 with WWW-Authenticate: Bearer when the token is missing or unknown', async (t) => {
  const sandbox = await testSandbox(t);
  const missing = await fetch(`${sandbox.fhirBase}/Patient/a-patient-1`);
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="fhirgate-sandbox"');
  const body = (await missing.json()) as { resourceType: string; issue: { code: string }[] };
  assert.equal(body.resourceType, 'OperationOutcome');
  assert.equal(body.issue[0]?.code, 'login');
  const unknown = await fetch(`${sandbox.fhirBase}/Patient?gender=male`, { headers: { authorization: 'Bearer made-up' } });
  assert.equal(unknown.status, 401);
  assert.match(unknown.headers.get('www-authenticate') ?? '', /^Bearer realm="fhirgate-sandbox", error="invalid_token"/);
  const basic = await fetch(`${sandbox.fhirBase}/Patient/a-patient-1`, { headers: { authorization: 'Basic Zm9vOmJhcg==' } });
  assert.equal(basic.status, 401);
  for (const [path, init] of [
    ['/Patient', { method: 'POST', body: '{}' }],
    ['/Patient/a-patient-1', { method: 'PUT', body: '{}' }],
    ['/Patient/a-patient-1', { method: 'DELETE' }],
  ] as const) {
    const res = await fetch(`${sandbox.fhirBase}${path}`, init);
    assert.equal(res.status, 401, init.method);
  }
  const stillThere = await fetch(`${sandbox.fhirBase}/Patient/a-patient-1`, { headers: { authorization: `Bearer ${await tokenFor(sandbox)}` } });
  assert.equal(stillThere.status, 200, 'the unauthenticated DELETE did nothing');
});

test('metadata and the SMART configuration need no token', async (t) => {
  const sandbox = await testSandbox(t);
  assert.equal((await fetch(`${sandbox.fhirBase}/metadata`)).status, 200);
  assert.equal((await fetch(`${sandbox.fhirBase}/.well-known/smart-configuration`)).status, 200);
});

test('faults.expireTokens() makes issued tokens answer 401 invalid_token; a new token works', async (t) => {
  const sandbox = await testSandbox(t);
  const token = await tokenFor(sandbox);
  const read = (tok: string): Promise<Response> => fetch(`${sandbox.fhirBase}/Patient/a-patient-1`, { headers: { authorization: `Bearer ${tok}` } });
  assert.equal((await read(token)).status, 200);
  sandbox.faults.expireTokens();
  const expired = await read(token);
  assert.equal(expired.status, 401);
  assert.match(expired.headers.get('www-authenticate') ?? '', /error="invalid_token", error_description="the access token expired"/);
  assert.equal(((await expired.json()) as { issue: { code: string }[] }).issue[0]?.code, 'expired');
  assert.equal((await read(await tokenFor(sandbox))).status, 200);
});

test('tokens stop working once tokenLifetimeSeconds have passed', async (t) => {
  const sandbox = await testSandbox(t, { tokenLifetimeSeconds: 1 });
  const res = await fetch(sandbox.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=fhirgate-demo&client_secret=demo-secret',
  });
  const { access_token: token, expires_in: expiresIn } = (await res.json()) as { access_token: string; expires_in: number };
  assert.equal(expiresIn, 1);
  await sleep(1100);
  const late = await fetch(`${sandbox.fhirBase}/Patient/a-patient-1`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(late.status, 401);
});

test('open: true serves FHIR without a token', async (t) => {
  const sandbox = await testSandbox(t, { open: true });
  assert.equal((await fetch(`${sandbox.fhirBase}/Patient/a-patient-1`)).status, 200);
});
