import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from './support/code-tree.js';
import { TSC } from './support/packed-package.js';

const root = ROOT;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return /\.(?:ts|mts|mjs|js)$/.test(e.name) ? [p] : [];
  });
}

/** Relative paths written in a file's string literals (quoted or template), with the line they sit on. */
function relativePaths(text: string): { path: string; line: number }[] {
  const found: { path: string; line: number }[] = [];
  text.split('\n').forEach((lineText, i) => {
    for (const m of lineText.matchAll(/['"`]((?:\.\.?\/)+[^'"`$]*)/g)) found.push({ path: m[1]!, line: i + 1 });
  });
  return found;
}

/** The literal relative paths in `text` (the contents of `file`) that resolve outside the repository. */
function escapesIn(file: string, text: string): string[] {
  return relativePaths(text)
    .filter(({ path }) => {
      const target = relative(root, resolve(dirname(file), path));
      return target === '..' || target.startsWith(`..${sep}`);
    })
    .map(({ path, line }) => `${relative(root, file)}:${line} ${path}`);
}

/** Files under `dirs` whose literal relative paths resolve outside the repository. */
function escapes(dirs: string[]): string[] {
  return dirs.flatMap((d) => sources(join(root, d))).flatMap((file) => escapesIn(file, readFileSync(file, 'utf8')));
}

test('no test, example, benchmark or script reads a path outside the repository', () => {
  assert.deepEqual(escapes(['test', 'examples', 'bench', 'scripts', 'src']), []);
});

test('the check sees a path that climbs out of the repository, and lets one inside it pass', () => {
  const file = join(root, 'test', 'support', 'soap-client.ts');
  const climb = `${'../'.repeat(3)}elsewhere/fixtures/cda/`; // built, so this file does not name the path itself
  const outside = `readFileSync(new URL(\`${climb}\${name}\`, import.meta.url))`;
  assert.deepEqual(escapesIn(file, outside), [`test/support/soap-client.ts:1 ${climb}`]);
  assert.deepEqual(escapesIn(file, "new URL('../fixtures/cda/x.xml', import.meta.url)"), []);
});

// bench/, scripts/ and examples/ are outside the build's type check (bench/ imports packages of its own): a
// file there that does not even parse would go unseen until someone runs it. tsc's syntax errors are TS1xxx.
// A file that does not parse goes in with them, so that the check is seen to report one.
test('every TypeScript file of the benchmarks, scripts and examples parses', (t) => {
  const files = ['bench', 'scripts', 'examples'].flatMap((d) => sources(join(root, d))).filter((file) => file.endsWith('.ts'));
  assert.ok(files.length > 50, `the files are found (${files.length})`);
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-parse-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const broken = join(dir, 'broken.ts');
  writeFileSync(broken, 'export const = 1;\n');
  const out = spawnSync(process.execPath, [TSC, '--ignoreConfig', '--noEmit', '--noResolve', '--skipLibCheck', '--types', '', '--target', 'es2022', '--module', 'nodenext', ...files, broken], { cwd: root, encoding: 'utf8' });
  const syntaxErrors = out.stdout.split('\n').filter((line) => /error TS1\d{3}:/.test(line));
  assert.ok(syntaxErrors.some((line) => line.includes('broken.ts')), `the file that does not parse is reported: ${out.stdout.slice(0, 500)}${out.stderr.slice(0, 500)}`);
  assert.deepEqual(syntaxErrors.filter((line) => !line.includes('broken.ts')), []);
});
