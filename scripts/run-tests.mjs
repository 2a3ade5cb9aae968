// Runs every test/**/*.test.ts with Node's own test runner, TypeScript loaded through tsx.
// Node 20's `--test` takes no globs, so the files are listed here. Extra arguments are passed on as
// file filters: `node scripts/run-tests.mjs gateway` runs only the files whose path contains "gateway".
// Every test file's process preloads scripts/fail-on-warning.mjs: a process warning fails the run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function list(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : list(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const filters = process.argv.slice(2);
const files = list('test')
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--import', './scripts/fail-on-warning.mjs', '--test', '--test-timeout=120000', '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
