// scripts/exit-watch.mjs, through the real runner: scripts/run-tests.mjs runs a tiny suite of two fixture files
// (test/fixtures/exit-watch/) in a folder of its own, as `npm test` runs the repository's. A process whose tests
// all passed but which a server keeps alive fails within TEST_EXIT_SECONDS, and the report names its files and
// the server's address; without the watch it would idle until the runner's 10-minute timeout.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/code-tree.js';

/** The fixture files, in the suite's folder `test/watch/`. */
const FIXTURES = ['closes-its-server.test.ts', 'leaves-a-server-open.test.ts'];

/**
 * A safety net only: a run takes seconds. A run that is still going then has hung (without the watch, until the
 * runner's 600 s timeout), and fails the test.
 */
const RUN_MS = 240_000;

/** A folder laid out as the repository is for the runner (its scripts, node_modules, a tsconfig) holding the fixture suite. */
function suiteFolder(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-exit-watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(ROOT, 'scripts'), join(dir, 'scripts'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const compilerOptions = { target: 'ES2022', module: 'NodeNext', outDir: '.build', rootDir: '.', types: ['node'], skipLibCheck: true };
  writeFileSync(join(dir, 'tsconfig.test.json'), JSON.stringify({ compilerOptions, include: ['test'] }));
  mkdirSync(join(dir, 'test', 'watch'), { recursive: true });
  for (const file of FIXTURES) copyFileSync(join(ROOT, 'test', 'fixtures', 'exit-watch', file), join(dir, 'test', 'watch', file));
  return dir;
}

/**
 * Runs `node scripts/run-tests.mjs <filter>` in `dir` to its end, in a process group of its own so that a run
 * that hangs is stopped whole (the runner, its lanes and their test processes).
 */
async function runTests(t: TestContext, dir: string, filter: string, env: Record<string, string>): Promise<{ code: number | null; out: string; hung: boolean }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv['NODE_V8_COVERAGE']; // no code of src/ runs there
  delete childEnv['NODE_TEST_CONTEXT']; // set for this test file's process: the runner's `node --test` would take itself for a test file
  const child = spawn(process.execPath, ['scripts/run-tests.mjs', filter], { cwd: dir, env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (out += chunk));
  const stopGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group has ended already.
    }
  };
  t.after(stopGroup);
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    stopGroup();
  }, RUN_MS);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, out, hung };
}

test('a test process that a server keeps alive after its tests fails within the bound, naming its files and the server', async (t) => {
  const dir = suiteFolder(t);
  const portFile = join(dir, 'port');
  const run = await runTests(t, dir, 'test/watch', { TEST_EXIT_SECONDS: '1', EXIT_WATCH_PORT_FILE: portFile, TEST_GROUP_SIZE: '6' });
  assert.equal(run.hung, false, `the run ended on its own:\n${run.out}`);
  assert.equal(run.code, 1, run.out);
  const port = readFileSync(portFile, 'utf8');
  const report = run.out.split('\n').filter((line) => line.includes('exit watch: '));
  const said = (text: string) => report.some((line) => line.includes(text));
  assert.ok(said('this test process finished its tests 1 s ago and has not exited'), run.out);
  assert.ok(said('its files: test/watch/closes-its-server.test.ts, test/watch/leaves-a-server-open.test.ts'), run.out);
  assert.ok(said('(process.getActiveResourcesInfo()): ') && said('TCPServerWrap'), run.out);
  assert.ok(said(`a server (Server) listening on 127.0.0.1:${port}, connections open: 0 (open already when the tests of test/watch/leaves-a-server-open.test.ts were done)`), run.out);
  // Every test passed: the process's failure is the watch's alone, and no stack trace stands in for its report.
  assert.match(run.out, /ℹ pass 2\n/);
  assert.doesNotMatch(run.out, /^\s+at /m);
});

test('a test process that closes what it opened passes', async (t) => {
  const dir = suiteFolder(t);
  const run = await runTests(t, dir, 'test/watch/closes-its-server', { TEST_EXIT_SECONDS: '1' });
  assert.equal(run.hung, false, `the run ended on its own:\n${run.out}`);
  assert.equal(run.code, 0, run.out);
  assert.match(run.out, /ℹ pass 1\n/);
  assert.doesNotMatch(run.out, /exit watch/);
});
