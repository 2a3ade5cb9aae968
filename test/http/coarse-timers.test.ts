import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { COARSE_RESOLUTION_MS, startTimer, stopTimer } from '../../src/http/coarse-timers.js';
import { LOADER, srcModule } from '../support/code-tree.js';

test('a coarse timer fires once, never before its time; a stopped one never fires; short ones are Node timers', async () => {
  const fired: Array<{ name: string; at: number }> = [];
  const t0 = performance.now();
  const note = (name: string) => fired.push({ name, at: performance.now() - t0 });
  startTimer(1200, note, 'coarse');
  const stopped = startTimer(1100, note, 'stopped');
  startTimer(1000, note, 'first second');
  const short = startTimer(50, note, 'short');
  assert.equal(typeof (short as NodeJS.Timeout).refresh, 'function', 'under a second: a Node timer');
  stopTimer(stopped);
  stopTimer(stopped); // stopping twice does nothing
  await sleep(1200 + COARSE_RESOLUTION_MS * 2 + 200);
  assert.deepEqual(fired.map((f) => f.name), ['short', 'first second', 'coarse']);
  const at = Object.fromEntries(fired.map((f) => [f.name, f.at]));
  assert.ok(at['first second']! >= 1000 && at['coarse']! >= 1200, JSON.stringify(at));
});

test('timers found due by one late tick fire in the order they fell due, not the order they were set', async () => {
  const fired: string[] = [];
  startTimer(1300, (name) => fired.push(name), 'later');
  startTimer(1000, (name) => fired.push(name), 'sooner');
  // Block the loop past both: the tick that finally runs finds both due at once.
  const until = performance.now() + 1400;
  while (performance.now() < until);
  await sleep(COARSE_RESOLUTION_MS * 2 + 100);
  assert.deepEqual(fired, ['sooner', 'later']);
});

test('the shared tick does not keep the process alive', async () => {
  const { spawnSync } = await import('node:child_process');
  const script = `import { startTimer } from ${JSON.stringify(srcModule('http/coarse-timers'))};
    startTimer(60_000, () => console.log('fired'), 1);
    console.log('set');`;
  const out = spawnSync(process.execPath, [...LOADER, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout.trim(), 'set');
});
