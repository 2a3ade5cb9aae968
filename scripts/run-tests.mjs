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
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

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
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(4, 2 * availableParallelism()));
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error('TEST_CONCURRENCY must be a positive integer');
  process.exit(1);
}
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
const parallel = files.filter((f) => !serial.includes(f));

/** One `node --test` over `group`; `capture` keeps its report to print later. */
function lane(group, laneConcurrency, capture) {
  if (group.length === 0) return Promise.resolve({ code: 0, report: '' });
  const args = [
    // Stack traces name the TypeScript files and lines (c8's coverage already has Node read the source maps).
    '--enable-source-maps', '--import', './scripts/fail-on-warning.mjs', '--test', `--test-concurrency=${laneConcurrency}`,
    // A hang is cut after 10 minutes. On Node 20 this bounds each file's process as well as each test, and
    // a file sharing a loaded machine can take minutes: the limit is for hangs, never a measurement.
    '--test-timeout=600000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-times.mjs', '--test-reporter-destination=stdout',
    ...group.map(built),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
  let report = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk) => void (report += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), report })));
}

const started = performance.now();
const [main, alone] = await Promise.all([lane(parallel, concurrency, false), lane(serial, 1, parallel.length > 0)]);
if (alone.report !== '') process.stdout.write(`\n# the files that run one at a time (${serial.length}):\n${alone.report}`);
const seconds = (performance.now() - started) / 1000;
console.log(`\n${files.length} test files (${parallel.length} at up to ${concurrency} at once, ${serial.length} one at a time) in ${seconds.toFixed(0)} s`);
process.exit(main.code !== 0 ? main.code : alone.code);
