import assert from 'node:assert/strict';
import { test } from 'node:test';
import { printable } from '../../src/lib/printable.js';

test('escape sequences go whole (CSI, OSC, DCS, two-byte ESC, lone ESC), in their 7-bit and C1 forms', () => {
  const cases: [string, string][] = [
    ['40%\x1b[2J done', '40% done'],
    ['\x1b[38;5;196mred\x1b[0m', 'red'],
    ['a\x1b]0;set the title\x07b', 'ab'],
    ['a\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\b', 'alinkb'],
    ['a\x1bPq#0;2;0;0;0\x1b\\b', 'ab'],
    ['x\x1bcy', 'xy'],
    ['end\x1b', 'end'],
    ['\x9b2Jcleared', 'cleared'],
    ['\x9d0;title\x9cafter', 'after'],
  ];
  for (const [input, output] of cases) assert.equal(printable(input), output, JSON.stringify(input));
});

test('C0 controls but tab, DEL and C1 controls are removed; line breaks become spaces unless multiline', () => {
  assert.equal(printable('a\x00b\x07c\x08d\x7fe\x85f\x9ag'), 'abcdefg');
  assert.equal(printable('tab\tkept'), 'tab\tkept');
  assert.equal(printable('one\r\ntwo\nthree\rfour'), 'one two three four');
  assert.equal(printable('one\r\ntwo\rthree\n', { multiline: true }), 'one\ntwo\nthree\n');
});

test('text without control characters comes back unchanged, the same string', () => {
  for (const text of ['', 'plain', 'ünïcödé ✓ 日本語', 'in progress: step 1 of 3', 'a\\u001b stays text']) {
    assert.equal(printable(text), text);
  }
});
