// The JSON logger hands its debug/info lines to the stream once per turn of the event loop, as one
// string, and loses and reorders none: warn/error lines, the host's close(), the process ending and a
// stream whose write throws all write what is held, in order.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { setImmediate as turnEnds } from 'node:timers/promises';
import { createJSONLogger, createServiceAPI } from '../../src/host/index.js';
import { helperScript, LOADER } from '../support/code-tree.js';

/** A stream that keeps each `write()` as it came. */
function writes(): { write(text: string): void; calls: string[] } {
  const calls: string[] = [];
  return { calls, write: (text: string) => void calls.push(text) };
}

const messages = (text: string): string[] => text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { msg: string }).msg);

test('the info lines of one loop turn reach the stream as one write when the turn ends, in order', async () => {
  const out = writes();
  const log = createJSONLogger({ level: 'debug', stdout: out });
  log.info('one');
  log.debug('two');
  log.info('three');
  assert.deepEqual(out.calls, []);
  await turnEnds();
  assert.equal(out.calls.length, 1);
  assert.deepEqual(messages(out.calls[0]!), ['one', 'two', 'three']);
  log.info('four');
  await turnEnds();
  assert.deepEqual(out.calls.slice(1).map(messages), [['four']]);
});

test('a warn or an error line is written at once, after every line held before it', () => {
  const both = writes();
  const log = createJSONLogger({ stdout: both, stderr: both });
  log.info('before');
  log.error('failed');
  log.info('after');
  log.warn('careful');
  assert.deepEqual(both.calls.map(messages), [['before'], ['failed'], ['after'], ['careful']]);

  const out = writes();
  const err = writes();
  const split = createJSONLogger({ stdout: out, stderr: err });
  split.info('held');
  split.warn('odd');
  assert.deepEqual([out.calls.map(messages), err.calls.map(messages)], [[['held']], [['odd']]]);
});

test('two loggers writing to one stream keep their lines in the order they were logged', async () => {
  const out = writes();
  const a = createJSONLogger({ stdout: out });
  const b = createJSONLogger({ stdout: out });
  a.info('a1');
  b.info('b1');
  a.info('a2');
  await turnEnds();
  assert.deepEqual(out.calls.map(messages), [['a1', 'b1', 'a2']]);
});

test('flush() writes what is held at once, and nothing when nothing is', () => {
  const out = writes();
  const log = createJSONLogger({ stdout: out });
  log.flush?.();
  log.info('now');
  log.flush?.();
  assert.deepEqual(out.calls.map(messages), [['now']]);
});

test('a deferred write that throws loses no line: the lines go, in order, with the next one', async () => {
  const calls: string[] = [];
  let failures = 1;
  const flaky = {
    write(text: string) {
      if (failures-- > 0) throw new Error('EAGAIN, for once');
      calls.push(text);
    },
  };
  const log = createJSONLogger({ stdout: flaky });
  log.info('one');
  log.info('two');
  await turnEnds(); // the write throws here, outside any caller: no uncaught exception, the lines stay held
  assert.deepEqual(calls, []);
  log.info('three');
  assert.deepEqual(calls.map(messages), [['one', 'two', 'three']]);
});

test('a stream that keeps failing throws to the code that logs, as a write per line did', async () => {
  const broken = {
    write() {
      throw new Error('the disk is gone');
    },
  };
  const log = createJSONLogger({ stdout: broken, stderr: broken });
  log.info('held');
  await turnEnds();
  assert.throws(() => log.info('next'), /the disk is gone/);
  assert.throws(() => log.error('failed'), /the disk is gone/);
});

test("the host's close() writes the lines still held: the last one is in the stream when close() resolves", async () => {
  const out = writes();
  const app = createServiceAPI({ apiKeys: [], logger: createJSONLogger({ stdout: out }) });
  await app.listen(0, '127.0.0.1');
  await app.close();
  assert.equal(messages(out.calls.join('')).at(-1), 'closed');
});

for (const end of ['exit', 'throw']) {
  test(`lines held when the process ends (${end === 'exit' ? 'process.exit()' : 'an uncaught exception'}) are written`, async () => {
    const child = spawn(process.execPath, [...LOADER, helperScript(import.meta.url, './log-exit-process'), '500', end], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += String(chunk)));
    child.stderr.resume();
    const [code] = (await once(child, 'close')) as [number];
    assert.equal(code, end === 'exit' ? 0 : 1);
    const lines = text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { i: number }).i);
    assert.deepEqual(lines, Array.from({ length: 500 }, (_, i) => i));
  });
}

test('an error line logged while an immediate throws (a crashing worker) is written once, and the lines held are written', { timeout: 20_000 }, async () => {
  const child = spawn(process.execPath, [...LOADER, helperScript(import.meta.url, './log-exit-process'), '3', 'crash-in-immediate'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += String(chunk)));
  let errText = '';
  child.stderr.on('data', (chunk: Buffer) => (errText += String(chunk)));
  const [code] = (await once(child, 'close')) as [number];
  assert.equal(code, 1);
  assert.deepEqual(messages(text), ['line', 'line', 'line']);
  const errors = errText.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; error: string });
  assert.deepEqual(errors.map((e) => [e.msg, e.error]), [['half way', undefined], ['crashed', 'thrown in an immediate']]);
});
