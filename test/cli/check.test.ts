import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli, tempDir } from './run-cli.js';

test('check prints a table with the token and the CapabilityStatement of every source (none for a public one), exit 0', async (t) => {
  const a = await startSandbox({ seed: 'a' });
  t.after(() => a.close());
  const { code, stdout, stderr } = await runCli(t, ['check', '--source', `ehr=${a.connectionString()}`, '--source', `open=fhir://${a.fhirBase.replace(/^http:\/\//, '')}/`]);
  assert.equal(stderr, '');
  assert.equal(code, 0);
  const lines = stdout.split('\n');
  assert.match(lines[0] ?? '', /^SOURCE\s+BASE URL\s+AUTH\s+TOKEN\s+METADATA$/);
  const ehr = lines.find((l) => l.startsWith('ehr ')) ?? '';
  assert.match(ehr, /client secret\s+ok: Bearer token received\s+ok: FHIR \d\.\d\.\d/);
  assert.ok(ehr.includes(a.fhirBase));
  const open = lines.find((l) => l.startsWith('open ')) ?? '';
  assert.match(open, /none\s+-\s+ok: FHIR \d\.\d\.\d/, 'a public /metadata needs no token');
  assert.match(stdout, /all 2 source\(s\) work/);
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
  assert.match(failing.stdout, /^bad .*FAILED: ERR_AUTH_TOKEN: .*401.*not tried \(no token\)/m);
  assert.ok(!failing.stdout.includes('not-the-secret-4711') && !failing.stderr.includes('not-the-secret-4711'));
  assert.ok(!failing.stdout.includes('demo-secret'));

  const json = await runCli(t, ['check', '--config', 'fhirgate.json', '--json'], { WRONG: 'demo-secret' }, dir);
  assert.equal(json.code, 0);
  const rows = JSON.parse(json.stdout) as Array<{ source: string; token: { ok: boolean }; metadata: { ok: boolean; detail: string } }>;
  assert.deepEqual(rows.map((r) => [r.source, r.token.ok, r.metadata.ok]), [['good', true, true], ['bad', true, true]]);
});

test('check reports an unreachable source as failed without waiting past --timeout', async (t) => {
  const a = await startSandbox({ seed: 'a' });
  const deadOrigin = a.fhirBase.replace(/^http:\/\//, '');
  await a.close();
  const { code, stdout } = await runCli(t, ['check', '--source', `gone=fhir://${deadOrigin}/`, '--timeout', '5']);
  assert.equal(code, 1);
  assert.match(stdout, /^gone .*FAILED: ERR_NETWORK/m);
});
