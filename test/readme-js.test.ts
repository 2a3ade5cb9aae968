import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const README = fileURLToPath(new URL('../README.md', import.meta.url));

/** The ```js blocks of the README: plain JavaScript a Node 20 user pastes as it is. */
function jsBlocks(): string[] {
  return [...readFileSync(README, 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test('every JavaScript block of the README is valid ES module syntax for this Node (no `using`)', (t) => {
  const blocks = jsBlocks();
  assert.ok(blocks.length >= 2, `found ${blocks.length} blocks`);
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-readme-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  blocks.forEach((code, i) => {
    assert.doesNotMatch(code, /^\s*(await\s+)?using\s/m, `block ${i + 1} uses a declaration Node 20 rejects`);
    const file = join(dir, `block-${i + 1}.mjs`);
    writeFileSync(file, code);
    const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
    assert.equal(check.status, 0, `README js block ${i + 1} is not valid JavaScript:\n${check.stderr}`);
  });
});

test('the syntax check can fail: TypeScript-only syntax is refused', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-readme-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'bad.mjs');
  writeFileSync(file, "import { AsyncFHIRGateway } from 'fhirgate';\nconst gw = new AsyncFHIRGateway();\nconst id: string = '1';\n");
  assert.notEqual(spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' }).status, 0);
});
