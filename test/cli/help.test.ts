import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMANDS } from '../../src/cli/index.js';
import { runCli, runMain } from '../support/run-cli.js';

test('fhirgate --help lists every command and exits 0', async (t) => {
  const { code, stdout } = await runCli(t, ['--help']);
  assert.equal(code, 0);
  assert.match(stdout, /^Usage: fhirgate <command>/);
  for (const command of COMMANDS) assert.match(stdout, new RegExp(`^  ${command.name}\\s+${command.summary.slice(0, 20)}`, 'm'));
});

test('fhirgate <command> --help documents every option of that command, and the config settings where it reads the file', async () => {
  for (const command of COMMANDS) {
    const { code, stdout } = await runMain([command.name, '--help']);
    assert.equal(code, 0, command.name);
    assert.match(stdout, new RegExp(`^Usage: fhirgate ${command.name} `));
    for (const [name, spec] of Object.entries(command.options)) {
      assert.ok(stdout.includes(`--${name}`), `${command.name} --help names --${name}`);
      assert.ok(stdout.includes(spec.description), `${command.name} --help describes --${name}`);
    }
    if (!('config' in command.options)) continue; // sandbox reads no config file
    for (const setting of ['sources', 'gateway.path', 'cds.module', 'notereader.module', 'apiKeys', 'cors', 'port']) assert.ok(stdout.includes(setting), setting);
  }
  assert.equal((await runMain(['help', 'serve'])).stdout, (await runMain(['serve', '-h'])).stdout);
});

test('no command prints the help on stderr with exit 2; an unknown command or option is exit 2 with a pointer to --help', async () => {
  const none = await runMain([]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /Usage: fhirgate <command>/);
  const unknown = await runMain(['srve']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "srve" \(did you mean serve\?\); commands: serve, check/);
  const option = await runMain(['serve', '--prot', '8000']);
  assert.equal(option.code, 2);
  assert.match(option.stderr, /fhirgate serve: .*--prot.*\nSee fhirgate serve --help/);
  const version = await runMain(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
});
