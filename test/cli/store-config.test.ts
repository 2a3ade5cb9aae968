// The `store` setting of fhirgate.json (Redis for the facade's rate limits and the gateway's tokens):
// its mistakes are config errors naming the setting and never its value (a URL may hold a password);
// a machine without the `redis` package gets a message naming what to install; a Redis that takes no
// connection stops start-up with exit 1, the password never printed.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { openSharedStore } from '../../src/cli/shared-store.js';
import { captureLogger } from '../support/logger.js';
import { freePort } from '../support/free-port.js';
import { helperScript, LOADER } from '../support/code-tree.js';
import { ROOT, runMain, startNode, tempDir } from '../support/run-cli.js';

const PASSWORD = 'pa55-w0rd-Never-Shown';
const SOURCE = 'fhir://127.0.0.1:9/fhir/';

const CASES: Array<{ name: string; store: unknown; env?: Record<string, string>; message: RegExp }> = [
  { name: 'not an object', store: `redis://:${PASSWORD}@127.0.0.1:6379`, message: /store: must be an object/ },
  { name: 'an unknown setting', store: { redis: 'redis://127.0.0.1:6379', url: `redis://:${PASSWORD}@h` }, message: /store\.url: unknown setting; allowed: redis, keyPrefix, commandTimeoutMs/ },
  { name: 'no URL', store: { keyPrefix: 'gw:' }, message: /store\.redis: is required/ },
  { name: 'an http URL', store: { redis: `http://user:${PASSWORD}@127.0.0.1:6379` }, message: /store\.redis: must be a redis:\/\/ or rediss:\/\/ URL/ },
  { name: 'a URL from the environment that is not one', store: { redis: '${REDIS_URL}' }, env: { REDIS_URL: `${PASSWORD} at 127.0.0.1` }, message: /store\.redis: must be a redis:\/\/ or rediss:\/\/ URL/ },
  { name: 'an unset variable', store: { redis: '${REDIS_URL_NOT_SET}' }, message: /store\.redis: environment variable REDIS_URL_NOT_SET is not set/ },
  { name: 'a key prefix that is not a string', store: { redis: 'redis://127.0.0.1:6379', keyPrefix: 7 }, message: /store\.keyPrefix: must be a string/ },
  { name: 'a command time-out of 0', store: { redis: 'redis://127.0.0.1:6379', commandTimeoutMs: 0 }, message: /store\.commandTimeoutMs: must be a whole number of milliseconds, 1 or more/ },
];

test('store mistakes exit 1 with the setting\'s path, never the URL or its password', async (t) => {
  const dir = tempDir(t);
  for (const c of CASES) {
    writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: SOURCE }, store: c.store }));
    const { code, stdout, stderr } = await runMain(['serve', '--config', 'fhirgate.json', '--port', '0'], c.env ?? {}, dir);
    assert.equal(code, 1, `${c.name}: ${stderr}`);
    assert.match(stderr, c.message, c.name);
    assert.ok(!`${stdout}${stderr}`.includes(PASSWORD), `${c.name}: the password is not echoed`);
  }
  const help = await runMain(['serve', '--help']);
  assert.match(help.stdout, /store {14}\{"redis": "redis:\/\/…" or "\$\{REDIS_URL\}"/, 'serve --help documents the setting');
});

test('a Redis that takes no connection stops start-up: exit 1, ERR_STORE_UNAVAILABLE, the password never printed', async (t) => {
  const dir = tempDir(t);
  const port = await freePort();
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: SOURCE }, store: { redis: '${REDIS_URL}' } }));
  const { code, stdout, stderr } = await runMain(['serve', '--config', 'fhirgate.json', '--port', '0'], { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}` }, dir);
  assert.equal(code, 1, stderr);
  assert.match(stderr, /^fhirgate serve: store\.redis: Redis did not take a connection within 5 s \(.*ECONNREFUSED.*\)$/m);
  assert.ok(!`${stdout}${stderr}`.includes(PASSWORD));
});

/** `fhirgate serve` in `dir` (its config there) with the `redis` package hidden beside fhirgate, or everywhere. */
function serveWithoutRedis(t: TestContext, dir: string, hidden: 'beside' | 'everywhere') {
  const hide = join(ROOT, 'test/fixtures/cli/hide-redis.mjs');
  const entry = helperScript(import.meta.url, '../support/cli-entry');
  return startNode(t, [...LOADER, '--import', hide, entry, 'serve', '--config', join(dir, 'fhirgate.json'), '--port', '0'], { HIDE_REDIS: hidden }, dir);
}

test('without the redis package installed, serve names what to install and exits 1 (a config setting, per the exit-code rule)', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: SOURCE }, store: { redis: `redis://:${PASSWORD}@127.0.0.1:6379` } }));
  const run = serveWithoutRedis(t, dir, 'everywhere');
  assert.equal(await run.exited, 1, run.stderr());
  assert.equal(run.stderr(), 'fhirgate serve: store.redis: needs the redis package, which fhirgate does not install: run `npm install redis` (v4 or v5) in your project or beside fhirgate\n');
  assert.ok(!run.stdout().includes(PASSWORD));
});

test('a redis package in the working directory is used when none is beside fhirgate (a global install, npx)', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'node_modules', 'redis'), join(dir, 'node_modules', 'redis'), 'dir');
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: SOURCE }, store: { redis: `redis://:${PASSWORD}@127.0.0.1:${await freePort()}` } }));
  const run = serveWithoutRedis(t, dir, 'beside');
  assert.equal(await run.exited, 1, run.stderr());
  assert.match(run.stderr(), /^fhirgate serve: store\.redis: Redis did not take a connection within 5 s/m, 'the package was found: it tried to connect');
  assert.ok(!`${run.stdout()}${run.stderr()}`.includes(PASSWORD));
});

test('the client is made to survive an outage: an error listener, no offline queue, reconnects for ever; its errors are logged without the password', async () => {
  let options: Record<string, any> = {};
  const listeners = new Map<string, (arg?: unknown) => void>();
  const logger = captureLogger();
  const fake = {
    createClient: (o: Record<string, unknown>) => {
      options = o;
      return {
        on: (event: string, listener: (arg?: unknown) => void) => void listeners.set(event, listener),
        connect: async () => {
          listeners.get('error')!(new Error(`WRONGPASS for ${PASSWORD}`));
          listeners.get('ready')!();
        },
        listenerCount: (event: string) => (listeners.has(event) ? 1 : 0),
        sendCommand: async () => 'OK',
        destroy: () => {},
        isOpen: true,
        isReady: true,
      };
    },
  };
  const shared = await openSharedStore({ redis: `redis://:${PASSWORD}@127.0.0.1:6379`, keyPrefix: undefined, commandTimeoutMs: undefined }, logger, async () => fake as never);
  assert.equal(options.disableOfflineQueue, true);
  assert.equal(options.url, `redis://:${PASSWORD}@127.0.0.1:6379`);
  assert.equal(typeof options.socket.reconnectStrategy, 'function');
  assert.equal(options.socket.reconnectStrategy(20), 2_000, 'never gives up, at most 2 s apart');
  assert.ok(listeners.has('error'));
  await shared.store.set('k', 'v', 1000);
  const lines = JSON.stringify(logger.lines);
  assert.match(lines, /redis store unavailable/);
  assert.match(lines, /redis store available again/);
  assert.ok(!lines.includes(PASSWORD), 'the password is hidden in what node-redis said');
  await shared.close();
});
