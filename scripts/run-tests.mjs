// Runs every test/**/*.test.ts with Node's own test runner, several files at once. Node 20's `--test` takes
// no globs, so the files are listed here. Extra arguments are file filters: `node scripts/run-tests.mjs
// test/gateway` runs only the files whose path contains "test/gateway".
//
// The tests run compiled: the repository's TypeScript (src/, test/, examples/) is first compiled into
// .build/ (tsconfig.test.json, with source maps, which c8 follows back to src/), and every test file runs
// with plain Node. Loading TypeScript through tsx instead costs each process about half a second of CPU
// (its loader thread) plus more per module, and the suite starts several hundred processes: test files,
// CLIs, cluster workers, worker threads. Type errors are `npm run typecheck`'s job, so the compile skips
// them. A single file can still run from its sources: `node --import tsx --test test/x/y.test.ts`.
//
// Two lanes run side by side: most files run TEST_CONCURRENCY at a time (default: twice the cores, at
// least 4; they mostly wait on sockets, timers and child processes), while the files in SERIAL run one
// after another, because each starts an external server, a browser or a set of worker processes that
// would starve its neighbours (and be starved by them). The serial lane's report is printed after the other's.
// Every test file's process preloads scripts/fail-on-warning.mjs: a process warning fails the run.
//
// In the concurrent lane, the files that leave no process-wide state behind run TEST_GROUP_SIZE to a
// process (default 6; 1 gives every file its own process): scripts/test-runs.mjs writes a small module per
// process that imports each of its files inside a suite named by the file's path, so a failure still names
// its file, and the file's own tests, hooks and `t.after`s run as they do alone. A process costs 0.2 to 0.5
// CPU seconds before its first test (Node, the test runner, the modules under test and their coverage), and
// the suite has ~200 files: grouped, a full run took 404-452 CPU seconds instead of 531 (2026-11-26). The
// files in ALONE keep a process of their own.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';
import { join } from 'node:path';
import { writeRuns } from './test-runs.mjs';

/** Files that run one at a time (path prefixes), and why. */
const SERIAL = [
  'test/docs/', // Chromium
  'test/host/behind-haproxy', // haproxy and three hosts under load
  'test/redis/', // redis-server
  'test/nats/', // nats-server
  'test/cluster/', // node:cluster workers
  'test/cli/serve-workers', // node:cluster workers through the CLI
  'test/events/cloud-events-reads', // 10,000 reads through the host: a load test
];

/**
 * Files that start first in the concurrent lane (path prefixes): each runs tens of seconds, one test after
 * another, so a late start would leave the other cores idle at the end while it finishes.
 */
const LONG_FIRST = [
  'test/examples/', // every example, each in its own process
  'test/package/', // npm pack and install
  'test/cli/', // the CLI in child processes
  'test/demo/', // the demo in child processes
  'test/fuzz/', // thousands of seeded cases
  'test/soap/', // large and hostile XML documents: the slowest of the in-process files
];

/**
 * Files of the concurrent lane that keep a process of their own (path prefixes), and why: each measures or
 * changes something that is the whole process's, or spends its time waiting on processes it starts (one
 * process each keeps those waits side by side).
 */
const ALONE = [
  'test/examples/', // every example in a child process
  'test/cli/', // the CLI in child processes (and its main in process, setting process.exitCode)
  'test/demo/', // the demo in child processes
  'test/package/', // npm pack and install in child processes
  'test/host/metrics', // turns on --expose-gc and measures the heap
  'test/gateway/bulk/heap', // measures memory (a child's)
  'test/sandbox/lifecycle', // counts the symbols on globalThis
  'test/http/coarse-timers', // the coarse timers' shared tick is the process's: its phase decides which fire together
  'test/http/instrumentation', // replaces node:http's request function for the whole process while it runs
  'test/scripts/', // this runner itself on a fixture suite, in child processes
];

function list(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : list(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const filters = process.argv.slice(2).map((f) => f.replace(/\\/g, '/').replace(/^\.\//, ''));
const files = list('test')
  .map((f) => f.replace(/\\/g, '/'))
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
/** A positive integer from the environment variable `name`, or `fallback`. */
function setting(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a positive integer`);
    process.exit(1);
  }
  return value;
}
const concurrency = setting('TEST_CONCURRENCY', Math.max(4, 2 * availableParallelism()));
const groupSize = setting('TEST_GROUP_SIZE', 6);
// A process of the concurrent lane that has not exited this long after its last test fails, naming what keeps it
// alive (scripts/exit-watch.mjs): a handle left open shows in seconds, not at the 10-minute timeout below.
const exitSeconds = setting('TEST_EXIT_SECONDS', 30);
// A fresh .build/, so that no test deleted from test/ still runs from an old compile.
rmSync('.build', { recursive: true, force: true });
const compiled = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.test.json', '--noCheck'], { stdio: 'inherit' });
if (compiled.status !== 0) {
  console.error('compiling the tests into .build/ failed');
  process.exit(1);
}
// The compiled src/ reads its version from ../package.json, as dist/ does in the package.
copyFileSync('package.json', join('.build', 'package.json'));
/** The compiled form of a test file: test/a/b.test.ts → .build/test/a/b.test.js. */
const built = (file) => join('.build', file.replace(/\.ts$/, '.js'));

const serial = files.filter((f) => SERIAL.some((s) => f.startsWith(s)));
/** A file's place in LONG_FIRST (the others after them). */
const rank = (f) => {
  const i = LONG_FIRST.findIndex((p) => f.startsWith(p));
  return i === -1 ? LONG_FIRST.length : i;
};
const parallel = files.filter((f) => !serial.includes(f)).sort((a, b) => rank(a) - rank(b));
/** Whether `f` keeps a process of its own. */
const keepsOwn = (f) => ALONE.some((p) => f.startsWith(p));
/**
 * `files` in groups of at most `groupSize`, in name order: a folder's files share most of the modules they
 * load (dealt out across the groups instead, the suite cost 10% more CPU).
 */
const grouped = (files) => Array.from({ length: Math.ceil(files.length / groupSize) }, (_, i) => files.slice(i * groupSize, (i + 1) * groupSize));
/**
 * What the concurrent lane runs, in this order: per LONG_FIRST prefix, its files alone, then its groups;
 * then the other groups; then the other files alone (short ones, which fill the end).
 */
const concurrentRuns = writeRuns(
  [
    ...LONG_FIRST.flatMap((_, r) => {
      const ranked = parallel.filter((f) => rank(f) === r);
      return [...ranked.filter(keepsOwn).map((f) => [f]), ...grouped(ranked.filter((f) => !keepsOwn(f)))];
    }),
    ...grouped(parallel.filter((f) => rank(f) === LONG_FIRST.length && !keepsOwn(f))),
    ...parallel.filter((f) => rank(f) === LONG_FIRST.length && keepsOwn(f)).map((f) => [f]),
  ].map((run) => run.map(built)),
  join('.build', 'test-runs'),
  exitSeconds,
);

/**
 * One `node --test` over the compiled files or group modules `runs`; `capture` keeps its report to print
 * later; `nice` lowers the priority of the lane and of every process it starts.
 */
function lane(runs, laneConcurrency, { capture = false, nice = 0 } = {}) {
  if (runs.length === 0) return Promise.resolve({ code: 0, report: '', seconds: 0 });
  const args = [
    // Without --enable-source-maps: it made the fuzz files cost 10% more CPU (every stack mapped). A failure's
    // stack names .build/…/x.js and its lines (run the file under tsx to see the .ts lines).
    '--import', './scripts/fail-on-warning.mjs', '--test', `--test-concurrency=${laneConcurrency}`,
    // A hang is cut after 10 minutes. On Node 20 the limit bounds each file's process as a whole, not each test
    // in it; on every Node a test's `t.after` hooks run outside its limit. A file sharing a loaded machine can
    // take minutes: the limit is for hangs, never a measurement.
    '--test-timeout=600000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-times.mjs', '--test-reporter-destination=stdout',
    ...runs,
  ];
  const begun = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
  // Set before the lane starts its first test process (Node takes tens of milliseconds to get there), which inherits it.
  if (nice !== 0) {
    try {
      setPriority(child.pid, nice);
    } catch {
      // Not permitted here: the lanes share the machine as equals.
    }
  }
  let report = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk) => void (report += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({
    code: code ?? (signal ? 1 : 0),
    report,
    seconds: (performance.now() - begun) / 1000,
  })));
}

const started = performance.now();
// The one-at-a-time lane's files (load tests, a browser, external servers) need the CPU when they run, so the
// concurrent lane, niced, fills what they leave: without it the one-at-a-time lane took as long as the
// other (377 s and 387 s in a run beside other engineers' benchmarks), with it 205 to 226 s.
const [main, alone] = await Promise.all([
  lane(concurrentRuns, concurrency, { nice: 5 }),
  lane(serial.map(built), 1, { capture: parallel.length > 0 }),
]);
if (alone.report !== '') process.stdout.write(`\n# the files that run one at a time (${serial.length}):\n${alone.report}`);
const seconds = (performance.now() - started) / 1000;
console.log(
  `\n${files.length} test files in ${concurrentRuns.length + serial.length} processes in ${seconds.toFixed(0)} s on Node ${process.versions.node}: ` +
    `${parallel.length} files at up to ${concurrency} processes at once (${main.seconds.toFixed(0)} s), ` +
    `${serial.length} one at a time (${alone.seconds.toFixed(0)} s)`,
);
process.exit(main.code !== 0 ? main.code : alone.code);
