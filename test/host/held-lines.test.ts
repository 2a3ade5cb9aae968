// fhirgate's own loggers hand a log stream the access lines of one event-loop turn as one write (a few
// milliseconds later at most), in order, and write warn and error lines at once after what was held
// (issue 38 item 2). Outside a
// request (or for a logger of the user's own) every line is written at once, as before.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { holdLinesOf } from '../../src/host/held-lines.js';
import { createJSONLogger } from '../../src/host/index.js';
import { helperScript, LOADER } from '../support/code-tree.js';
import { rawRequest } from '../support/host-helpers.js';
import { startApp } from '../support/serve.js';

/** Sends GETs of `paths` pipelined in one TCP write (each with the id `r-<index>`) and resolves with the answers. */
function pipelined(base: string, paths: readonly string[]): Promise<string> {
  return rawRequest(base, paths.map((path, i) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Request-ID: r-${i}\r\n\r\n`).join(''));
}

/** A JSON logger whose one stream (stdout and stderr) keeps every `write` it gets, as written. */
function recordedLogger() {
  const writes: string[] = [];
  const stream = { write: (chunk: string) => writes.push(chunk) };
  return { writes, logger: createJSONLogger({ level: 'info', stdout: stream, stderr: stream }) };
}

/** Resolves once `done()` holds (held lines go out within a few milliseconds; the bound is generous for loaded machines). */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The `msg` and `request_id` of each JSON line in `chunk`. */
const linesOf = (chunk: string) => chunk.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { msg: string; request_id: string; status?: number });

test('the access lines of requests answered in one event-loop turn reach the log stream in one write, in order', async (t) => {
  const { writes, logger } = recordedLogger();
  const { base } = await startApp(t, { logger: logger as never }, (a) => a.get('/r', () => ({ ok: true })));
  const before = writes.length;
  const answers = await pipelined(base, ['/r', '/r', '/r']);
  assert.equal(answers.match(/HTTP\/1\.1 200/g)?.length, 3);
  await until(() => writes.slice(before).join('').split('"msg":"request"').length === 4);
  const chunks = writes.slice(before).filter((w) => w.includes('"msg":"request"'));
  assert.equal(chunks.length, 1, `one write for the turn's three access lines, not ${chunks.length}`);
  assert.deepEqual(linesOf(chunks[0]!).map((l) => [l.msg, l.request_id, l.status]), [['request', 'r-0', 200], ['request', 'r-1', 200], ['request', 'r-2', 200]]);
});

test('while lines are held, a warn or error line is written at once after the held ones; later lines are held again', async () => {
  const { writes, logger } = recordedLogger();
  holdLinesOf(logger);
  logger.info('a');
  logger.info('b');
  assert.deepEqual(writes, [], 'held until the end of the turn');
  logger.error('c');
  logger.info('d');
  logger.warn('e');
  logger.info('f');
  assert.deepEqual(writes.map((w) => linesOf(w).map((l) => l.msg)), [['a', 'b'], ['c'], ['d'], ['e']]);
  await until(() => writes.length === 5);
  assert.deepEqual(writes.map((w) => linesOf(w).map((l) => l.msg)), [['a', 'b'], ['c'], ['d'], ['e'], ['f']]);
});

test('a logger that is not one of fhirgate\'s gets no turn held for it', () => {
  const { writes, logger } = recordedLogger();
  holdLinesOf({ debug() {}, info() {}, warn() {}, error() {} });
  logger.info('a');
  assert.equal(writes.length, 1);
});

test('outside a request, a line is written at once', () => {
  const { writes, logger } = recordedLogger();
  logger.info('listening', { port: 1 });
  assert.equal(writes.length, 1);
});

test('lines still held when the process exits are written on exit', async () => {
  const child = spawn(process.execPath, [...LOADER, helperScript(import.meta.url, './held-lines-exit')], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  for await (const chunk of child.stdout) out += String(chunk);
  assert.deepEqual(linesOf(out).map((l) => l.msg), ['last words']);
});

test('lines held right after a write wait until 25 ms after it (at most 40 writes a second), then go out as one', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'setImmediate'] });
  // The module reads the time from performance.now(): a clock of the test's own, moved with the mocked timers,
  // so that no real time (a loaded machine's pause) decides the test. It starts long after any earlier write.
  let now = 1e9;
  t.mock.method(performance, 'now', () => now);
  const tick = (ms: number) => {
    now += ms;
    t.mock.timers.tick(ms);
  };
  const { writes, logger } = recordedLogger();
  holdLinesOf(logger);
  logger.info('a');
  tick(0); // the end of the turn, the last write long past: the lines go at once
  assert.deepEqual(writes.map((w) => linesOf(w).map((l) => l.msg)), [['a']]);
  holdLinesOf(logger); // a new turn's lines, just after that write
  logger.info('b');
  logger.info('c');
  tick(0); // the end of the turn
  tick(10);
  assert.equal(writes.length, 1, 'still held 10 ms after the last write');
  tick(15);
  assert.deepEqual(writes.map((w) => linesOf(w).map((l) => l.msg)), [['a'], ['b', 'c']]);
});
