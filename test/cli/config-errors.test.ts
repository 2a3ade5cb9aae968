import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseConnectionString } from '../../src/auth/index.js';
import { validateConfig } from '../../src/cli/index.js';
import { runMain, tempDir } from '../support/run-cli.js';

const SECRET = 's3cr3t-Value-9876';
const GOOD = 'fhir://127.0.0.1:9/fhir/';

/** Each bad config, the environment it runs with, and the message that must name the setting. */
const CASES: Array<{ name: string; config: unknown; env?: Record<string, string>; message: RegExp }> = [
  {
    name: 'a token_url that is not https',
    config: { sources: { ehr: `fhir://ehr.example.org/r4/?client_id=app&client_secret=${SECRET}&token_url=http://ehr.example.org/token` } },
    message: /sources\.ehr: token_url must be https/,
  },
  {
    name: 'a secret from the environment in a malformed source',
    config: { sources: { ehr: 'fhir://ehr.example.org/r4/?client_id=app&client_secret=${EHR_SECRET}&token_url=https://ehr.example.org/token&scopes=x' } },
    env: { EHR_SECRET: SECRET },
    message: /sources\.ehr: unknown parameter "scopes"/,
  },
  { name: 'an unset variable', config: { sources: { ehr: 'fhir://h.example.org/?client_id=a&client_secret=${NOPE_NOT_SET}&token_url=https://h.example.org/t' } }, message: /sources\.ehr: environment variable NOPE_NOT_SET is not set/ },
  { name: 'an unknown top-level setting', config: { sources: {}, prot: 8000 }, message: /prot: unknown setting; allowed: .*port/ },
  { name: 'an unknown gateway setting', config: { gateway: { prefix: '/x' } }, message: /gateway\.prefix: unknown setting/ },
  { name: 'a port out of range', config: { sources: { a: GOOD }, port: 70000 }, message: /port: must be an integer from 0 to 65535/ },
  { name: 'a cds mount without a module', config: { sources: { a: GOOD }, cds: { path: '/cds' } }, message: /cds\.module: is required/ },
  { name: 'a cors without origins', config: { sources: { a: GOOD }, cors: { credentials: true } }, message: /cors\.origins: is required/ },
  { name: 'an API key that is not a string', config: { sources: { a: GOOD }, apiKeys: [SECRET, 42] }, message: /apiKeys\[1\]: must be a non-empty string/ },
  { name: 'a bad fhirVersion', config: { sources: { a: GOOD }, gateway: { fhirVersion: 'R4' } }, message: /gateway\.fhirVersion: must be a FHIR version code/ },
  { name: 'a bad source name', config: { sources: { 'e h r': GOOD } }, message: /sources: a source name is/ },
  { name: 'a source that is not a string', config: { sources: { ehr: { url: GOOD } } }, message: /sources\.ehr: must be a fhir:\/\/ connection string/ },
  {
    name: "a caller's sources naming a source the config lacks",
    config: { sources: { ehr: GOOD }, callers: [{ name: 'app', apiKey: SECRET, sources: ['ehrr'], scopes: 'system/*.rs' }] },
    message: /callers\[0\]\.sources\[0\]: names no configured source; did you mean `ehr`\?/,
  },
  {
    name: "an issuer's patientSource naming a source the config lacks",
    config: { sources: { ehr: GOOD, lab: GOOD }, callers: [{ issuer: 'https://idp.example.org', jwks: { keys: [] }, audience: 'https://gw', sources: '*', scopes: 'patient/*.rs', patientSource: 'lba' }] },
    message: /callers\[0\]\.patientSource: names no configured source; did you mean `lab`\?/,
  },
  { name: 'a handler module that does not exist', config: { sources: { a: GOOD }, gateway: { module: './nope.mjs' } }, message: /gateway\.module: cannot load .*nope\.mjs/ },
];

test('serve with a bad config exits 1 with the setting\'s path in the message and never the secret', async (t) => {
  const dir = tempDir(t);
  for (const c of CASES) {
    writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify(c.config));
    const { code, stdout, stderr } = await runMain(['serve', '--config', 'fhirgate.json', '--port', '0'], c.env ?? {}, dir);
    assert.equal(code, 1, `${c.name}: ${stderr}`);
    assert.match(stderr, c.message, c.name);
    assert.match(stderr, /^fhirgate serve: /, c.name);
    assert.ok(!stderr.includes(SECRET) && !stdout.includes(SECRET), `${c.name}: the secret is not echoed`);
    assert.doesNotMatch(stderr, /\n\s+at /, `${c.name}: no stack trace`);
  }
});

test('a config file that is missing, not JSON, or whose module exports no function: exit 1, the file named, no content quoted', async (t) => {
  const dir = tempDir(t);
  const missing = await runMain(['check', '--config', 'absent.json'], {}, dir);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /fhirgate check: absent\.json: cannot read the config file \(no such file\)/);

  writeFileSync(join(dir, 'broken.json'), `{ "sources": { "ehr": "fhir://h/?client_secret=${SECRET}" }, }`);
  const broken = await runMain(['serve', '--config', 'broken.json'], {}, dir);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /broken\.json: not valid JSON/);
  assert.ok(!broken.stderr.includes(SECRET));

  writeFileSync(join(dir, 'empty.mjs'), 'export const x = 1;\n');
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { a: GOOD }, cds: { module: './empty.mjs' } }));
  const noFunction = await runMain(['serve', '--config', 'fhirgate.json', '--port', '0'], {}, dir);
  assert.equal(noFunction.code, 1);
  assert.match(noFunction.stderr, /cds\.module: .*empty\.mjs must export a setup function/);
});

test('command-line mistakes, values that do not fit included, are exit 2 naming the option; a config file\'s are exit 1', async () => {
  const noEquals = await runMain(['serve', '--source', 'fhir://127.0.0.1:9/']);
  assert.equal(noEquals.code, 2);
  assert.match(noEquals.stderr, /--source takes name=fhir:\/\/…/);
  const bad = await runMain(['check', '--source', `ehr=fhir://h.example.org/?client_id=a&client_secret=${SECRET}&token_url=http://h.example.org/token`]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--source ehr: token_url must be https.*\nSee fhirgate check --help\n$/);
  assert.ok(!bad.stderr.includes(SECRET));
  const none = await runMain(['serve']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /serve needs at least one source/);
  const port = await runMain(['serve', '--source', `a=${GOOD}`, '--port', 'eighty']);
  assert.equal(port.code, 2);
  assert.match(port.stderr, /--port: must be an integer from 0 to 65535/);
  const envPort = await runMain(['serve', '--source', `a=${GOOD}`], { PORT: 'eighty' });
  assert.equal(envPort.code, 1, 'an environment variable is not the command line');
  assert.match(envPort.stderr, /PORT: must be an integer from 0 to 65535/);
});

test('validateConfig expands ${VAR} in every string but title and description, keeps $${ literal, and resolves module paths against the file\'s folder', () => {
  const config = validateConfig(
    { $schema: 'x', sources: { ehr: 'fhir://${HOST}/fhir/' }, title: 'cost $${PRICE}', gateway: { module: 'h/m.mjs' }, port: '${P}' },
    { dir: '/srv/app', env: { HOST: 'localhost:8080', P: '9000' } },
  );
  assert.equal(config.sources.get('ehr'), 'fhir://localhost:8080/fhir/');
  assert.equal(config.title, 'cost ${PRICE}');
  assert.equal(config.gateway.module, '/srv/app/h/m.mjs');
  assert.equal(config.port, 9000);
  assert.throws(() => validateConfig([], { dir: '/', env: {} }), { code: 'ERR_CONFIG', message: '(the file): must be an object' });
  assert.throws(() => validateConfig({ sources: { a: 'fhir://${a-b}/' } }, { dir: '/', env: {} }), { code: 'ERR_CONFIG', message: /^sources\.a: a \$\{…\} reference must hold a variable name/ });
});

test('title and description, shown without an API key, never expand a variable: a reference is ERR_CONFIG naming the setting', () => {
  const env = { EHR_SECRET: 's3cr3t-Value-9876' };
  for (const key of ['title', 'description']) {
    assert.throws(() => validateConfig({ [key]: 'Gateway ${EHR_SECRET}' }, { dir: '/', env }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_CONFIG');
      assert.match(err.message, new RegExp(`^${key}: \\$\\{…\\} is not expanded here \\(it is shown at / and /docs without an API key\\)`));
      assert.ok(!err.message.includes(env.EHR_SECRET));
      return true;
    });
  }
  assert.equal(validateConfig({ description: 'costs $${PRICE}' }, { dir: '/', env }).description, 'costs ${PRICE}');
});

test('${VAR} after the ? of a fhir:// connection string is percent-encoded, so any secret arrives as written; before the ? it is inserted as is', () => {
  const env = { SECRET: 'a&b=c%41 d+e#f', WHOLE: 'fhir://h.example.org/r4/?client_id=x&client_secret=y%26z&token_url=https://h.example.org/t', HOST: 'h.example.org' };
  const config = validateConfig(
    { sources: { one: 'fhir://${HOST}/r4/?client_id=app&client_secret=${SECRET}&token_url=https://h.example.org/t', whole: '${WHOLE}' }, host: 'not-a-connection-string?${SECRET}' },
    { dir: '/', env },
  );
  const one = parseConnectionString(config.sources.get('one')!);
  assert.equal(one.auth?.kind === 'client_secret' && one.auth.clientSecret, env.SECRET);
  assert.equal(one.baseUrl, 'https://h.example.org/r4');
  assert.equal(config.sources.get('whole'), env.WHOLE);
  assert.equal(config.host, `not-a-connection-string?${env.SECRET}`);
  const whole = parseConnectionString(config.sources.get('whole')!);
  assert.equal(whole.auth?.kind === 'client_secret' && whole.auth.clientSecret, 'y&z');
});

test('the old gateway.timeout key is an error naming its new name, gateway.timeoutSeconds', () => {
  assert.throws(() => validateConfig({ sources: { a: GOOD }, gateway: { timeout: 30 } }, { dir: '.', env: {} }), { code: 'ERR_CONFIG', message: /gateway\.timeout: is now gateway\.timeoutSeconds/ });
  assert.equal(validateConfig({ sources: { a: GOOD }, gateway: { timeoutSeconds: 30 } }, { dir: '.', env: {} }).gateway.timeoutSeconds, 30);
});
