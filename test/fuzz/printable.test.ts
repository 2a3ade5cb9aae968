/** Fuzz: `printable` leaves no control character in upstream text bound for a terminal or a log. */
import assert from 'node:assert/strict';
import { printable } from '../../src/lib/printable.js';
import { fuzz } from './lib/fuzz.js';

/** Printable text with escape sequences, control characters and line breaks put in at random places. */
const HOSTILE = ['\x1b[2J', '\x1b]0;owned\x07', '\x1b]8;;https://x\x1b\\', '\x1bP1$r\x1b\\', '\x1b', '\x1bc', '\x9b31m', '\x9d0;t\x9c', '\x85', '\x7f', '\x00', '\r', '\n', '\r\n', '\x9f', '\x90'];

fuzz('fuzz: printable leaves no control character but tab, and changes nothing in text that has none', { seed: 0x7e57, iterations: 3000 }, {
  generate: (rng) => {
    const base = rng.string(rng.size(40), 'abc 123 ✓ é\t[];%');
    const plain = base.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f]/g, '');
    let text = base;
    for (let i = rng.int(4); i > 0; i--) {
      const at = rng.int(text.length + 1);
      text = text.slice(0, at) + rng.pick(HOSTILE) + text.slice(at);
    }
    return { plain, text, multiline: rng.chance(0.5) };
  },
  check: ({ plain, text, multiline }) => {
    assert.equal(printable(plain), plain);
    const out = printable(text, { multiline });
    assert.doesNotMatch(out, multiline ? /[\x00-\x08\x0b-\x1f\x7f-\x9f]/ : /[\x00-\x08\x0a-\x1f\x7f-\x9f]/);
    assert.equal(printable(out, { multiline }), out, 'printable twice is printable once');
  },
});
