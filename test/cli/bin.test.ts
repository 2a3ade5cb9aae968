import assert from 'node:assert/strict';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startSandbox } from '../../src/sandbox/index.js';
import { ROOT, startNode, tempDir, waitServing } from '../support/run-cli.js';

/** A clone's layout in a temporary folder: bin/ copied, src/ and (when asked) node_modules/ linked, and a dist/ CLI when given. */
function layout(t: TestContext, parts: { nodeModules: boolean; dist?: string }): string {
  const dir = tempDir(t);
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'src'), join(dir, 'src'), 'dir');
  if (parts.nodeModules) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  if (parts.dist !== undefined) {
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'cli', 'index.js'), parts.dist);
  }
  return dir;
}

/** A dist/ CLI that only says it ran: where the bin must not go, or where it must. */
const MARKER_DIST = "export async function runProcess() { console.log('ran dist/'); process.exitCode = 3; }\n";

test('in a clone after npm install, without a build, bin/fhirgate.js serves from the sources (a stale dist/ is not run)', async (t) => {
  const sandbox = await startSandbox({ seed: 'a' });
  t.after(() => sandbox.close());
  const clone = layout(t, { nodeModules: true, dist: MARKER_DIST });
  const run = startNode(t, [join(clone, 'bin', 'fhirgate.js'), 'serve', '--source', `ehr=${sandbox.connectionString()}`, '--port', '0'], {}, clone);
  const serving = await waitServing(run);
  assert.equal((await fetch(serving.docs)).status, 200);
  const status = (await (await fetch(`${serving.gateway}/status`)).json()) as { sources: { names: string[] } };
  assert.deepEqual(status.sources.names, ['ehr']);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  assert.doesNotMatch(run.stdout(), /ran dist/);
});

test('without tsx (devDependencies left out), bin/fhirgate.js runs the built dist/', async (t) => {
  const run = startNode(t, [join(layout(t, { nodeModules: false, dist: MARKER_DIST }), 'bin', 'fhirgate.js'), '--help']);
  assert.equal(await run.exited, 3);
  assert.equal(run.stdout(), 'ran dist/\n');
});

test('with neither tsx nor dist/, bin/fhirgate.js says what to run, in one line, exit code 1', async (t) => {
  const run = startNode(t, [join(layout(t, { nodeModules: false }), 'bin', 'fhirgate.js'), '--help']);
  assert.equal(await run.exited, 1);
  assert.equal(run.stderr(), 'fhirgate: neither dist/ (run `npm run build`) nor tsx to run src/ (run `npm install`) is here\n');
});
