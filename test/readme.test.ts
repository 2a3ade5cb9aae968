import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT as root, docPages, fencedBlocks } from './support/doc-pages.js';

test('the README shows the two set-up commands', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.match(readme, /```sh\nnpm install && npm start\n```/);
  assert.match(readme, /```sh\nnpm test\n```/);
  assert.match(readme, /Dependencies: 1 \(saxes/);
});

test('the README is a landing page and the reference lives in docs/', () => {
  const pages = docPages();
  const readme = pages.find((p) => p.path === 'README.md')!;
  assert.ok(readme.text.split('\n').length <= 250, `README.md has ${readme.text.split('\n').length} lines`);
  for (const page of pages.filter((p) => p.path !== 'README.md')) {
    assert.ok(readme.text.includes(`](${page.path}`), `README.md links to ${page.path}`);
  }
});

test('no command line in the README or docs/ carries a client secret (ps shows it to every user)', () => {
  // Allowed: client_secret='${VAR}' inside single quotes, which fhirgate expands (the shell does not).
  const expandedByFhirgate = (block: string): string => block.replace(/'[^']*'/g, (quoted) => quoted.replace(/client_secret=\$\{[A-Za-z_]\w*\}/g, ''));
  for (const { path, text } of docPages()) {
    for (const block of fencedBlocks(text, 'sh')) {
      assert.doesNotMatch(expandedByFhirgate(block), /client_secret=/, `${path}: a shell command with client_secret=`);
    }
  }
  assert.match(expandedByFhirgate(`fhirgate check --source "ehr=fhir://h/?client_secret=\${S}"`), /client_secret=/, 'double quotes: the shell expands it');
});

test('every TypeScript block of the README and of docs/*.md type-checks against the sources', (t) => {
  const blocks = docPages().flatMap(({ path, text }) =>
    fencedBlocks(text, 'ts').map((code, i) => ({ file: `${basename(path, '.md')}-block-${i + 1}.ts`, code })));
  assert.ok(blocks.length >= 8, `found ${blocks.length} blocks`);
  // Inside the repository so that node_modules/@types resolve; removed afterwards.
  const dir = mkdtempSync(join(root, '.readme-check-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const { file, code } of blocks) writeFileSync(join(dir, file), `${code}\nexport {};\n`);
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
  assert.equal(result.status, 0, `documentation blocks do not type-check (file names say page and block):\n${result.stdout}${result.stderr}`);
});

test('a documentation block that misuses the API fails the check (the check can fail)', (t) => {
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
