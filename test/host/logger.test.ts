// The default logger, createJSONLogger: one JSON object a line, by level, to stdout or stderr, with no
// control character from upstream text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createJSONLogger } from '../../src/host/index.js';

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
