// The concurrent lane's runs (used by scripts/run-tests.mjs): one module per process, each importing one
// test file or a group of them. Node 20's `--test` gives every file a process of its own, each costing
// about 0.3 CPU seconds before its first test, and runs the files it is given in name order, whatever
// order they come in. A run's module imports its files, each inside a `describe` named by the file's path
// in test/, so that every test, hook and failure of the file is reported under its file's name (its stack
// names the file too), and the file's own `before`/`after` hooks stay scoped to it; the modules' names
// (01-…, 02-…) give the order. Once its last test is done, a run's module arms scripts/exit-watch.mjs, which
// fails a process that does not exit within the given seconds and says what keeps it alive.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository path of a compiled test file: .build/test/a/b.test.js → test/a/b.test.ts. */
function sourceOf(compiled) {
  return relative('.build', compiled).replace(/\\/g, '/').replace(/\.js$/, '.ts');
}

/** The module that watches a run's process for a clean exit, as a URL for the runs' modules to import. */
const EXIT_WATCH = new URL('./exit-watch.mjs', import.meta.url).href;

/**
 * Writes one module per run of `runs` (each a list of compiled test files, in the order they should start)
 * into `dir` and returns the modules' paths for `node --test`; a run's process that has not exited
 * `exitSeconds` after its last test fails, naming what keeps it alive.
 */
export function writeRuns(runs, dir, exitSeconds) {
  mkdirSync(dir, { recursive: true });
  const digits = String(runs.length).length;
  return runs.map((run, i) => {
    const label = run.length === 1 ? basename(run[0], '.test.js') : `group-of-${run.length}`;
    const file = join(dir, `${String(i + 1).padStart(digits, '0')}-${label}.test.js`);
    const entries = run.map((f) => [sourceOf(f), pathToFileURL(f).href]);
    writeFileSync(
      file,
      [
        '// Written by scripts/run-tests.mjs: these test files run in this process, one after another, each in a suite named by its path.',
        "import { after, describe } from 'node:test';",
        `import { noteHandles, watchExit } from ${JSON.stringify(EXIT_WATCH)};`,
        `const FILES = ${JSON.stringify(entries, null, 1)};`,
        // The import is awaited in the suite's own function, which is what makes the file's tests the suite's
        // (node:test finds a test's parent through that async chain). The suites' functions run at once; the
        // tests run afterwards, suite after suite. No test file has top-level await (its top-level code runs whole).
        // The suite's last `after` notes the handles then open, so that the report can say since which file.
        'for (const [name, url] of FILES) describe(name, async () => { await import(url); after(() => noteHandles(name)); });',
        // The root's `after` runs once every suite is done, hooks included (on Node 20.19 too, not at exit).
        `after(() => watchExit(FILES.map(([name]) => name), ${exitSeconds}));`,
        '',
      ].join('\n'),
    );
    return file;
  });
}
