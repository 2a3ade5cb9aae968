import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The ```ts blocks of the README, in order. */
function tsBlocks(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test('the README shows the two set-up commands', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.match(readme, /```sh\nnpm install && npm start\n```/);
  assert.match(readme, /```sh\nnpm test\n```/);
  assert.match(readme, /Dependencies: 1 \(saxes/);
});

test('every TypeScript block of the README type-checks against the sources', (t) => {
  const blocks = tsBlocks();
  assert.ok(blocks.length >= 8, `found ${blocks.length} blocks`);
  // Inside the repository so that node_modules/@types resolve; removed afterwards.
  const dir = mkdtempSync(join(root, '.readme-check-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  blocks.forEach((code, i) => writeFileSync(join(dir, `block-${i + 1}.ts`), `${code}\nexport {};\n`));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    extends: '../tsconfig.json',
    compilerOptions: {
      noEmit: true,
      noUnusedLocals: false,
      paths: { fhirgate: ['../src/index.ts'], 'fhirgate/*': ['../src/*/index.ts'] },
    },
    include: ['*.ts'],
    exclude: [],
  }));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
  assert.equal(result.status, 0, `README blocks do not type-check:\n${result.stdout}${result.stderr}`);
});

test('a README block that misuses the API fails the check (the check can fail)', (t) => {
  const dir = mkdtempSync(join(root, '.readme-check-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'bad.ts'), "import { AsyncFHIRGateway } from 'fhirgate';\nconst gw = new AsyncFHIRGateway();\nconst n: number = await gw.read('Patient', '1');\nexport {};\n");
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    extends: '../tsconfig.json',
    compilerOptions: { noEmit: true, paths: { fhirgate: ['../src/index.ts'] } },
    include: ['*.ts'],
    exclude: [],
  }));
  const result = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
  assert.notEqual(result.status, 0);
  assert.match(result.stdout, /Patient/);
});
