import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { docPages, fencedBlocks } from './support/doc-pages.js';

test('every JavaScript block of the README and of docs/*.md is valid ES module syntax for this Node (no `using`)', (t) => {
  const blocks = docPages().flatMap(({ path, text }) =>
    fencedBlocks(text, 'js').map((code, i) => ({ name: `${path} js block ${i + 1}`, file: `${basename(path, '.md')}-block-${i + 1}.mjs`, code })));
  assert.ok(blocks.length >= 2, `found ${blocks.length} blocks`);
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-readme-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const { name, file, code } of blocks) {
    assert.doesNotMatch(code, /^\s*(await\s+)?using\s/m, `${name} uses a declaration Node 20 rejects`);
    writeFileSync(join(dir, file), code);
    const check = spawnSync(process.execPath, ['--check', join(dir, file)], { encoding: 'utf8' });
    assert.equal(check.status, 0, `${name} is not valid JavaScript:\n${check.stderr}`);
  }
});

test('the syntax check can fail: TypeScript-only syntax is refused', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-readme-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'bad.mjs');
  writeFileSync(file, "import { AsyncFHIRGateway } from 'fhirgate';\nconst gw = new AsyncFHIRGateway();\nconst id: string = '1';\n");
  assert.notEqual(spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' }).status, 0);
});
