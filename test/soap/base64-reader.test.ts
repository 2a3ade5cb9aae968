import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Base64Reader, decodeBase64Strict } from '../../src/soap/base64.js';
import { DocumentReader } from '../../src/soap/document-reader.js';

/** Strict base64 as a regular expression says it, or 'error'. */
function reference(text: string): string {
  const compact = text.replace(/[ \t\r\n]/g, '');
  const valid = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact);
  return valid ? Buffer.from(compact, 'base64').toString('hex') : 'error';
}

function outcome(read: () => Buffer): string {
  try {
    return read().toString('hex');
  } catch (err) {
    assert.equal((err as { code?: string }).code, 'ERR_SOAP_CLIENT');
    return 'error';
  }
}

/** `text` cut at every place into two pieces, and into pieces of 1 to 5 characters. */
function cuts(text: string): string[][] {
  const out: string[][] = [];
  for (let at = 0; at <= text.length; at += 1) out.push([text.slice(0, at), text.slice(at)]);
  for (let size = 1; size <= 5; size += 1) out.push(Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, i * size + size)));
  return out;
}

const SAMPLES = [
  '', 'dGVzdGluZw==', 'YWI=', 'YQ==', 'YWJj', 'dGVzdGluZx==', 'dGVz\r\ndGluZw==', ' d G V z\n\tdGluZw== ',
  'dGVzdGluZw=', 'dGVzdGluZw', 'dGVzdGluZw===', 'QQ==QUJD', 'Q===', '====', '=', 'dGV=dGluZw==',
  'dGVz_GluZw==', 'dGVz-GluZw==', 'dGVzé0lu', 'dG.zdGlu', 'dGVz\u0141GluZw==', 'AB\u00a0CDEF', 'YWJj\u000bZGVm',
];

test('base64 read in pieces, cut anywhere, decodes exactly as strict base64 says, and fails where it fails', () => {
  for (const text of SAMPLES) {
    const expected = reference(text);
    assert.equal(outcome(() => decodeBase64Strict(text)), expected, JSON.stringify(text));
    for (const pieces of cuts(text)) {
      const reader = new Base64Reader();
      for (const piece of pieces) reader.write(piece);
      assert.equal(outcome(() => reader.end()), expected, `${JSON.stringify(text)} in ${JSON.stringify(pieces)}`);
    }
  }
});

test('a large base64 text read in pieces of every alignment gives its bytes', () => {
  const bytes = Buffer.from(Array.from({ length: 200_001 }, (_, i) => (i * 7919) % 256));
  const text = bytes.toString('base64').replace(/(.{76})/g, '$1\r\n');
  for (const size of [4093, 4096, 65_536, 65_537]) {
    const reader = new Base64Reader();
    for (let i = 0; i < text.length; i += size) reader.write(text.slice(i, i + size));
    assert.ok(reader.end().equals(bytes), `pieces of ${size}`);
  }
});

test('a Document read in pieces is trimmed as String#trim trims the whole text, then decoded strictly', () => {
  const texts = [
    'dGVzdGluZw==', '  \r\n dGVzdGluZw== \n ', '\u00a0dGVz dGluZw==\u00a0\ufeff', '\ufeff\u2028dGVzdGluZw==\u3000',
    'dGVz\u00a0dGluZw==', 'dGVz    \n\n   dGluZw==', '   ', '', '\u00a0 \u00a0', 'dGVzdGluZw== é',
  ];
  for (const text of texts) {
    const trimmed = text.trim();
    for (const pieces of cuts(text)) {
      const doc = new DocumentReader();
      for (const piece of pieces) doc.write(piece);
      assert.equal(doc.blank, trimmed === '', `${JSON.stringify(text)} in ${JSON.stringify(pieces)}`);
      if (trimmed !== '') assert.equal(outcome(() => doc.bytes()), outcome(() => decodeBase64Strict(trimmed)), `${JSON.stringify(text)} in ${JSON.stringify(pieces)}`);
    }
  }
});
