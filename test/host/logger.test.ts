// The loggers: createJSONLogger (one JSON object a line, by level, to stdout or stderr, with no control
// character from upstream text) and createLogger (JSON to a pipe, one readable line a record to a terminal).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createJSONLogger, createLogger } from '../../src/host/index.js';

test('the default logger writes one JSON object a line, info to stdout and errors to stderr, above its level', () => {
  const out: string[] = [];
  const err: string[] = [];
  const log = createJSONLogger({ level: 'info', stdout: { write: (l: string) => out.push(l) }, stderr: { write: (l: string) => err.push(l) } });
  log.debug('hidden');
  log.info('listening', { port: 1 });
  log.warn('careful');
  log.error('failed', { code: 'ERR_X' });
  assert.equal(out.length, 1);
  assert.equal(err.length, 2);
  const line = JSON.parse(out[0]!);
  assert.equal(line.level, 'info');
  assert.equal(line.msg, 'listening');
  assert.equal(line.port, 1);
  assert.ok(out[0]!.endsWith('\n'));
  assert.equal(JSON.parse(err[1]!).code, 'ERR_X');
  assert.throws(() => createJSONLogger({ level: 'loud' as never }), /level/);
  const debug = createJSONLogger({ level: 'debug', stdout: { write: (l: string) => out.push(l) } });
  debug.debug('shown');
  assert.equal(JSON.parse(out[1]!).msg, 'shown');
});

test('the default logger writes upstream text without control characters: no escape sequence, DEL or C1 reaches a terminal', () => {
  const out: string[] = [];
  const log = createJSONLogger({ stdout: { write: (l: string) => out.push(l) } });
  log.info('upstream answered', { detail: 'throttled\x9b2J\x1b]0;owned\x07 \x7fnow', nested: { text: 'x\x85y' }, status: 429 });
  log.info('plain', { detail: 'nothing to strip, "quoted" \\ and\nlines' });
  assert.equal(out.length, 2);
  for (const line of out) assert.doesNotMatch(line.slice(0, -1), /[\x00-\x1f\x7f-\x9f]|\\u00[01][0-9a-f]/, line);
  const first = JSON.parse(out[0]!);
  assert.equal(first.detail, 'throttled now');
  assert.equal(first.nested.text, 'xy');
  assert.equal(first.status, 429);
  assert.equal(JSON.parse(out[1]!).detail, 'nothing to strip, "quoted" \\ and\nlines');
});

test('a JSON line is the text of JSON.stringify of {time, level, msg, ...fields}, whatever the fields hold', () => {
  const out: string[] = [];
  const log = createJSONLogger({ stdout: { write: (l: string) => out.push(l) } });
  const cases: Array<Record<string, unknown>> = [
    {},
    { request_id: 'r-1', method: 'GET', route: null, status: 200, duration_ms: 1.5 },
    { skipped: undefined, fn: () => 1, nested: { a: [1, 'two', null] }, when: new Date(0) },
    { time: 'overridden', extra: 1 },
    { msg: 'also' },
    { level: 'fake' },
    { 2: 'integer keys come first', 1: 'one', name: 'x' },
    { toJSON: () => ({ replaced: true }) },
    { toJSON: () => ({}) },
    Object.create({ inherited: 'not own' }, { own: { value: 'mine', enumerable: true } }),
  ];
  for (const fields of cases) log.info('message "quoted"', fields);
  assert.equal(out.length, cases.length);
  cases.forEach((fields, i) => {
    const time = (JSON.parse(out[i]!) as { time?: unknown }).time;
    const expected = JSON.stringify({ time, level: 'info', msg: 'message "quoted"', ...fields });
    // (A `toJSON` field replaces the whole record, time included: `time` is then undefined on both sides.)
    assert.equal(out[i], `${expected}\n`, `case ${i}`);
  });
  assert.match(JSON.parse(out[1]!).time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

/** A stream that keeps what is written, a terminal when `isTTY`. */
function sink(isTTY: boolean): { write(line: string): void; readonly isTTY: boolean; lines: string[] } {
  const lines: string[] = [];
  return { lines, isTTY, write: (line: string) => void lines.push(line) };
}

test('createLogger writes JSON lines to a pipe and one readable line a record to a terminal', (t) => {
  const saved = process.env['LOG_FORMAT'];
  delete process.env['LOG_FORMAT'];
  t.after(() => (saved === undefined ? delete process.env['LOG_FORMAT'] : (process.env['LOG_FORMAT'] = saved)));
  const pipe = sink(false);
  createLogger({ stdout: pipe }).info('listening', { port: 8000 });
  assert.deepEqual(JSON.parse(pipe.lines[0]!).port, 8000);

  const tty = sink(true);
  const log = createLogger({ stdout: tty, stderr: tty, color: false });
  log.info('listening', { port: 8000, host: '127.0.0.1' });
  log.info('request', { request_id: 'r-1', method: 'GET', route: '/fhir/status', status: 200, duration_ms: 3.1 });
  log.warn('odd value', { note: 'two words', list: ['a', 1] });
  assert.match(tty.lines[0]!, /^\d\d:\d\d:\d\d\.\d{3} INFO  listening port=8000 host=127\.0\.0\.1\n$/);
  assert.match(tty.lines[1]!, /^\S+ INFO  GET \/fhir\/status 200 3\.1 ms request_id=r-1\n$/);
  assert.match(tty.lines[2]!, /^\S+ WARN  odd value note="two words" list=\["a",1\]\n$/);
});

test('LOG_FORMAT chooses the format whatever the stream; an unknown one is a RangeError', (t) => {
  const saved = process.env['LOG_FORMAT'];
  t.after(() => (saved === undefined ? delete process.env['LOG_FORMAT'] : (process.env['LOG_FORMAT'] = saved)));
  process.env['LOG_FORMAT'] = 'pretty';
  const pipe = sink(false);
  createLogger({ stdout: pipe }).info('hello');
  assert.match(pipe.lines[0]!, /^\S+ INFO  hello\n$/);
  process.env['LOG_FORMAT'] = 'json';
  const tty = sink(true);
  createLogger({ stdout: tty }).info('hello');
  assert.equal(JSON.parse(tty.lines[0]!).msg, 'hello');
  process.env['LOG_FORMAT'] = 'xml';
  assert.throws(() => createLogger({ stdout: tty }), { name: 'RangeError', message: /LOG_FORMAT must be one of json, pretty/ });
  assert.throws(() => createLogger({ format: 'yaml' as never }), { name: 'RangeError', message: /options\.format/ });
});

test('pretty lines: a stack follows on indented lines, colour only when asked, levels below the minimum dropped', () => {
  const out = sink(true);
  const log = createLogger({ format: 'pretty', level: 'debug', stdout: out, stderr: out, color: true });
  log.debug('handler failed: stack', { stack: 'Error: boom\n    at h (/app/handlers.mjs:3:9)' });
  log.error('handler failed', { at: '/app/handlers.mjs:3:9' });
  assert.match(out.lines[0]!, /DEBUG.* handler failed: stack\n    Error: boom\n        at h \(\/app\/handlers\.mjs:3:9\)\n$/);
  assert.match(out.lines[1]!, /\x1b\[31mERROR\x1b\[0m handler failed at=\/app\/handlers\.mjs:3:9\n$/);
  const quiet = sink(true);
  createLogger({ format: 'pretty', level: 'warn', stdout: quiet }).info('hidden');
  assert.deepEqual(quiet.lines, []);
});
