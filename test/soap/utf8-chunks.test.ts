import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readEnvelope } from '../../src/soap/read-envelope.js';
import { Utf8Chunks } from '../../src/soap/utf8-chunks.js';
import { envelope } from '../support/soap-client.js';

/** What a fatal, streaming TextDecoder gives for the same chunks: the text, or 'error'. */
function reference(chunks: Uint8Array[]): string {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return chunks.map((c) => decoder.decode(c, { stream: true })).join('') + decoder.decode();
  } catch {
    return 'error';
  }
}

function decoded(chunks: Uint8Array[]): string {
  const utf8 = new Utf8Chunks();
  try {
    const text = chunks.map((c) => utf8.decode(c)).join('');
    utf8.end();
    return text;
  } catch (err) {
    assert.ok(err instanceof TypeError);
    return 'error';
  }
}

/** Cuts `bytes` at every position in turn, and into single bytes. */
function splits(bytes: Buffer): Uint8Array[][] {
  const out: Uint8Array[][] = [[bytes], [...bytes].map((b) => Uint8Array.of(b))];
  for (let i = 0; i <= bytes.length; i++) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return out;
}

test('UTF-8 chunks decode like a fatal streaming TextDecoder, wherever the chunks are cut', () => {
  const samples = [
    Buffer.from('plain ascii'),
    Buffer.from('é ✓ 😀 Ünïcode'),
    Buffer.from('\uFEFF<a>bom first</a>'),
    Buffer.from('a\uFEFFb'),
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from([0x61, 0xc3]), // cut short at the end
    Buffer.from([0x61, 0xff, 0x62]), // never UTF-8
    Buffer.from([0xe2, 0x82, 0x61]), // a 3-byte lead with one continuation
    Buffer.from([0xed, 0xa0, 0x80]), // a UTF-16 surrogate encoded
    Buffer.from([0xc0, 0xaf]), // overlong
    Buffer.from([0x80, 0x80, 0x80, 0x80]), // continuation bytes only
    Buffer.from([0xf4, 0x90, 0x80, 0x80]), // past U+10FFFF
    Buffer.alloc(0),
  ];
  for (const bytes of samples) {
    for (const chunks of splits(bytes)) assert.equal(decoded(chunks), reference(chunks), `${bytes.toString('hex')} cut ${chunks.map((c) => c.length)}`);
  }
});

test('an envelope whose characters are cut between chunks is read whole; bad UTF-8 is an InvalidXML Client fault', async () => {
  const bytes = Buffer.from(envelope('<ClinicalDocument>é ✓ 😀</ClinicalDocument>').replace('S-1', 'S-ü✓😀'));
  async function* oneByOne(b: Buffer) {
    for (const byte of b) yield Uint8Array.of(byte);
  }
  const message = await readEnvelope(oneByOne(bytes), { maxDepth: 64, maxElements: 1000 });
  assert.equal(message.params.get('SessionID'), 'S-ü✓😀');
  const bad = Buffer.concat([bytes.subarray(0, 60), Buffer.from([0xff]), bytes.subarray(60)]);
  await assert.rejects(readEnvelope(oneByOne(bad), { maxDepth: 64, maxElements: 1000 }), { faultCode: 'Client', type: 'InvalidXML' });
  const cut = bytes.subarray(0, bytes.indexOf(Buffer.from('😀')) + 2);
  await assert.rejects(readEnvelope(oneByOne(cut), { maxDepth: 64, maxElements: 1000 }), { faultCode: 'Client' });
});
