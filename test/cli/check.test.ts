import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSandbox } from '../../src/sandbox/index.js';
import { startServer } from '../http/test-server.js';
import { runCli, tempDir } from './run-cli.js';

test('check prints a table with the token, the CapabilityStatement and an authenticated read of every source (no token for a public one), exit 0', async (t) => {
  const a = await startSandbox({ seed: 'a' });
  t.after(() => a.close());
  const { code, stdout, stderr } = await runCli(t, ['check', '--source', `ehr=${a.connectionString()}`]);
  assert.equal(stderr, '');
  assert.equal(code, 0);
  const lines = stdout.split('\n');
  assert.match(lines[0] ?? '', /^SOURCE\s+BASE URL\s+AUTH\s+TOKEN\s+METADATA\s+READ$/);
  const ehr = lines.find((l) => l.startsWith('ehr ')) ?? '';
  assert.match(ehr, /client secret\s+ok: Bearer token received\s+ok: FHIR \d\.\d\.\d.*\s+ok: Patient search answered, total \d+$/);
  assert.ok(ehr.includes(a.fhirBase));
  const open = await startSandbox({ seed: 'a', open: true });
  t.after(() => open.close());
  const public_ = await runCli(t, ['check', '--source', `open=fhir://${open.fhirBase.replace(/^http:\/\//, '')}/`, '--read-type', 'Observation']);
  assert.equal(public_.code, 0, public_.stdout);
  assert.match(public_.stdout, /^open .*none\s+-\s+ok: FHIR \d\.\d\.\d.*ok: Observation search answered/m, 'a public server needs no token');
  assert.match(stdout, /all 1 source\(s\) work/);
  assert.equal(a.stats.tokenRequests, 1, 'one token was fetched');
});

test('check --config with a wrong secret from the environment: the token step fails, the secret is never printed', async (t) => {
  const a = await startSandbox({ seed: 'a' });
  t.after(() => a.close());
  const dir = tempDir(t);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: {
    good: a.connectionString(),
    bad: a.connectionString().replace('client_secret=demo-secret', 'client_secret=${WRONG}'),
  } }));
  const failing = await runCli(t, ['check', '--config', 'fhirgate.json'], { WRONG: 'not-the-secret-4711' }, dir);
  assert.equal(failing.code, 1);
  assert.match(failing.stdout, /^good .*ok: Bearer token received\s+ok: FHIR/m);
  assert.match(failing.stdout, /^bad .*FAILED: ERR_AUTH_TOKEN: .*401.*FAILED: not tried \(no token\)\s+FAILED: not tried \(no token\)$/m);
  assert.ok(!failing.stdout.includes('not-the-secret-4711') && !failing.stderr.includes('not-the-secret-4711'));
  assert.ok(!failing.stdout.includes('demo-secret'));

  const json = await runCli(t, ['check', '--config', 'fhirgate.json', '--json'], { WRONG: 'demo-secret' }, dir);
  assert.equal(json.code, 0);
  const rows = JSON.parse(json.stdout) as Array<{ source: string; token: { ok: boolean }; metadata: { ok: boolean; detail: string }; read: { ok: boolean } }>;
  assert.deepEqual(rows.map((r) => [r.source, r.token.ok, r.metadata.ok, r.read.ok]), [['good', true, true, true], ['bad', true, true, true]]);
});

test('check reports an unreachable source as failed without waiting past --timeout', async (t) => {
  const a = await startSandbox({ seed: 'a' });
  const deadOrigin = a.fhirBase.replace(/^http:\/\//, '');
  await a.close();
  const { code, stdout } = await runCli(t, ['check', '--source', `gone=fhir://${deadOrigin}/`, '--timeout', '5']);
  assert.equal(code, 1);
  assert.match(stdout, /^gone .*FAILED: ERR_NETWORK/m);
});

test('a source without its credentials: /metadata is public and answers, the authenticated read fails with 401 and the server\'s words, exit 1', async (t) => {
  const a = await startSandbox({ seed: 'a' });
  t.after(() => a.close());
  const { code, stdout } = await runCli(t, ['check', '--source', `bare=fhir://${a.fhirBase.replace(/^http:\/\//, '')}/`]);
  assert.equal(code, 1);
  assert.match(stdout, /^bare .*none\s+-\s+ok: FHIR \d\.\d\.\d.*FAILED: HTTP 401 \(the credentials were refused\): \S/m);
  assert.match(stdout, /1 of 1 source\(s\) failed/);
});

test('a 403 on the read: the server\'s words without the token, the secret or control characters; --read-type picks the searched type', async (t) => {
  const secret = 'Xq9-check-secret';
  const srv = await startServer(t, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, value: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify(value));
    };
    if (path === '/token') return json(200, { access_token: 'tok-SEEN-BY-SERVER', token_type: 'Bearer', expires_in: 300 });
    if (path === '/r4/metadata') return json(200, { resourceType: 'CapabilityStatement', fhirVersion: '4.0.1' });
    const diagnostics = `scope missing for tok-SEEN-BY-SERVER (client secret ${secret})\u001b[2J\u001b]0;owned\u0007\u009b31m\u202etxt.exe`;
    return json(403, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'forbidden', diagnostics }] });
  });
  const host = srv.url.slice('http://'.length);
  const cs = `fhir://${host}/r4/?client_id=app&client_secret=${secret}&token_url=${encodeURIComponent(`${srv.url}/token`)}`;
  const { code, stdout, stderr } = await runCli(t, ['check', '--source', `ehr=${cs}`, '--read-type', 'Condition']);
  assert.equal(code, 1);
  assert.match(stdout, /^ehr .*ok: Bearer token received\s+ok: FHIR 4\.0\.1\s+FAILED: HTTP 403 \(the credentials were refused\): scope missing for \[redacted\] \(client secret \[redacted\]\)txt\.exe$/m);
  assert.ok(!stdout.includes(secret) && !stdout.includes('tok-SEEN-BY-SERVER') && !stderr.includes(secret));
  assert.doesNotMatch(stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/, 'no control character reaches the terminal');
  assert.ok(srv.seen.some((r) => r.url === '/r4/Condition?_count=1&_elements=id' && r.headers.authorization === 'Bearer tok-SEEN-BY-SERVER'));

  const typo = await runCli(t, ['check', '--source', `ehr=${cs}`, '--read-type', 'Conditon']);
  assert.equal(typo.code, 2, 'a mistake on the command line');
  assert.match(typo.stderr, /^fhirgate check: --read-type: "Conditon" is not a FHIR R4 resource type \(did you mean Condition\?\)/);
});
