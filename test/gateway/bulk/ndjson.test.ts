/** ndjsonLines: lines split across chunks, CRLF, an unterminated last line, the line limit. */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { ndjsonLines } from '../../../src/gateway/bulk/ndjson-lines.js';
import type { NdjsonLine } from '../../../src/gateway/bulk/ndjson-lines.js';

async function lines(chunks: string[], max = 1024): Promise<{ lines: NdjsonLine[]; bytes: number }> {
  const counter = { bytes: 0 };
  const out: NdjsonLine[] = [];
  for await (const line of ndjsonLines(Readable.from(chunks.map((c) => Buffer.from(c))), max, counter, 'test file')) out.push(line);
  return { lines: out, bytes: counter.bytes };
}

test('lines split anywhere across chunks come out whole, CRLF is trimmed, and the bytes are counted', async () => {
  const { lines: got, bytes } = await lines(['{"a":', '1}\r\n{"b"', ':"é', '"}\n', '\n{"c":3}']);
  assert.deepEqual(got, [
    { text: '{"a":1}', number: 1, unterminated: false },
    { text: '{"b":"é"}', number: 2, unterminated: false },
    { text: '', number: 3, unterminated: false },
    { text: '{"c":3}', number: 4, unterminated: true },
  ]);
  assert.equal(bytes, Buffer.byteLength('{"a":1}\r\n{"b":"é"}\n\n{"c":3}'));
});

test('a line over maxLineBytes is ERR_BULK_FILE naming the line, whether it ends or not', async () => {
  await assert.rejects(lines(['{"a":1}\n', 'x'.repeat(20), '\n'], 16), { code: 'ERR_BULK_FILE', message: /^test file: line 2 is longer than 16 bytes$/ });
  await assert.rejects(lines(['{"a":1}\n', 'x'.repeat(10), 'x'.repeat(10)], 16), { code: 'ERR_BULK_FILE', message: /line 2 is longer than 16 bytes/ });
  assert.equal((await lines(['x'.repeat(16), '\n'], 16)).lines[0]?.text.length, 16);
});
