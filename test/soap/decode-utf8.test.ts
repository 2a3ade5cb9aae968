import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeUTF8 } from '../../src/soap/utf8-chunks.js';

function reference(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'error';
  }
}

function decoded(bytes: Uint8Array): string {
  try {
    return decodeUTF8(bytes);
  } catch (err) {
    assert.ok(err instanceof TypeError);
    return 'error';
  }
}

test('whole UTF-8 bytes decode like a fatal TextDecoder: ASCII, other text, byte-order marks and bad bytes', () => {
  const samples = [
    Buffer.from('plain ascii'), Buffer.from('x'.repeat(70_000)), Buffer.from('é ✓ 😀 Ünïcode'), Buffer.from('\uFEFF<a>bom first</a>'),
    Buffer.from('\uFEFF\uFEFFtwo'), Buffer.from('a\uFEFFb'), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from([0xef, 0xbb]),
    Buffer.from([0x61, 0xc3]), Buffer.from([0x61, 0xff, 0x62]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xc0, 0xaf]),
    Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0x7f, 0x00, 0x01]), Buffer.alloc(0),
  ];
  for (const bytes of samples) {
    assert.equal(decoded(bytes), reference(bytes), bytes.subarray(0, 16).toString('hex'));
    const inLarger = Buffer.concat([Buffer.from('ab'), bytes]).subarray(2);
    assert.equal(decoded(new Uint8Array(inLarger.buffer, inLarger.byteOffset, inLarger.byteLength)), reference(bytes), 'a view into a larger buffer');
  }
});
