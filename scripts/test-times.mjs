// A node:test reporter that writes nothing while the tests run and, at the end, each test file's time: the
// sum of its top-level tests' durations as measured in its process (they run one after another; the
// process's start-up is not in it), slowest first. scripts/run-tests.mjs adds it after the
// spec reporter, so that the slow files are seen at once.
import { relative } from 'node:path';

const SHOWN = 12;

export default async function* testTimes(source) {
  /** Per file: the nesting of its top-level tests (0 alone, 1 in a group's suite), their time and count. */
  const files = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    // A file's own entry (named by its path) only comes when the file failed as a whole; a group's suites
    // (scripts/test-runs.mjs) are entries of the run's module.
    if (file === undefined || event.data.name === file || /[\\/]test-runs[\\/]/.test(file)) continue;
    const seen = files.get(file) ?? { nesting: Infinity, ms: 0, tests: 0 };
    if (nesting < seen.nesting) Object.assign(seen, { nesting, ms: 0, tests: 0 });
    if (nesting === seen.nesting) {
      seen.ms += details?.duration_ms ?? 0;
      seen.tests += 1;
    }
    files.set(file, seen);
  }
  const rows = [...files].map(([file, s]) => [relative(process.cwd(), file), s.ms / 1000, s.tests]).sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return;
  yield `\nslowest test files (seconds of their tests; ${rows.length} files):\n`;
  for (const [file, seconds, tests] of rows.slice(0, process.env.TEST_TIMES_ALL ? rows.length : SHOWN)) {
    yield `${seconds.toFixed(1).padStart(7)}  ${file} (${tests} tests)\n`;
  }
}
