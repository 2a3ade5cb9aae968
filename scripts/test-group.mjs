// Several compiled test files in one process (used by scripts/run-tests.mjs). Node 20's `--test` gives every
// file a process of its own, and each costs about 0.3 CPU seconds before its first test; a group module
// imports its files one after another, each inside a `describe` named by the file's path in test/, so
// that every test, hook and failure of the file is reported under its file's name (and its stack names
// the file), and the file's own `before`/`after` hooks stay scoped to it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository path of a compiled test file: .build/test/a/b.test.js → test/a/b.test.ts. */
function sourceOf(compiled) {
  return relative('.build', compiled).replace(/\\/g, '/').replace(/\.js$/, '.ts');
}

/**
 * Writes one module per `size` files of `compiled` (compiled test files) into `dir`, named `<prefix>NN`,
 * and returns what `node --test` runs: the modules, or the file itself where a group would hold one file.
 */
export function writeGroups(compiled, size, dir, prefix) {
  const groups = [];
  for (let i = 0; i < compiled.length; i += size) groups.push(compiled.slice(i, i + size));
  if (groups.some((g) => g.length > 1)) mkdirSync(dir, { recursive: true });
  return groups.map((group, i) => {
    if (group.length === 1) return group[0];
    const file = join(dir, `${prefix}${String(i + 1).padStart(2, '0')}.test.js`);
    const entries = group.map((f) => [sourceOf(f), pathToFileURL(f).href]);
    writeFileSync(
      file,
      [
        '// Written by scripts/run-tests.mjs: these test files run in one process, one after another, each in a suite named by its path.',
        "import { describe } from 'node:test';",
        `const FILES = ${JSON.stringify(entries, null, 1)};`,
        // The import is awaited in the suite's own function, which is what makes the file's tests the suite's
        // (node:test finds a test's parent through that async chain). The suites' functions run at once; the
        // tests run afterwards, suite after suite. No test file has top-level await (its top-level code runs whole).
        'for (const [name, url] of FILES) describe(name, async () => void (await import(url)));',
        '',
      ].join('\n'),
    );
    return file;
  });
}
