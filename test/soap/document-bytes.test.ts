import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import { NoteReaderService } from '../../src/soap/index.js';
import type { NoteReaderHandler } from '../../src/soap/index.js';
import { decodeBase64Strict } from '../../src/soap/base64.js';
import { writeResponse, writeResponseBytes } from '../../src/soap/write-envelope.js';
import { child, textContent } from '../../src/soap/xml-tree.js';
import { bodyChild, envelope, post, readFault } from './soap-client.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function serve(t: TestContext, handler: NoteReaderHandler): Promise<string> {
  const app = createServiceAPI({ logger: quiet });
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', handler);
  app.registerService(nr, { path: '/nr' });
  const server = await app.listen(0, '127.0.0.1');
  t.after(() => app.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/nr`;
}

function answeredBase64(root: Parameters<typeof bodyChild>[0]): string {
  return textContent(child(child(bodyChild(root), 'ProcessDocumentResult'), 'Document'));
}

test('strict base64: characters Node would skip, fold or read as another alphabet are refused', () => {
  // Node keeps only the low byte of U+0141 ('A') and reads '-' and '_' as '+' and '/'.
  for (const bad of ['dGVz\u0141GluZw==', 'dGVz_GluZw==', 'dGVz-GluZw==', 'dGV=dGluZw==', 'dGVzdGlu===', 'dGVz.GluZw==', 'dGVzdGluZw', 'é'.repeat(4)]) {
    assert.throws(() => decodeBase64Strict(bad), { code: 'ERR_SOAP_CLIENT' }, JSON.stringify(bad));
  }
  assert.equal(decodeBase64Strict('dGVz\r\n dGluZw==').toString(), 'testing');
  assert.equal(decodeBase64Strict('').length, 0);
});

test('the answer built as bytes is byte for byte the answer built as text', () => {
  const ns = 'urn:epic-com:Common.2013.Services';
  for (const result of [{ document: '<doc>é ✓</doc>', error: 'ünïcode & <x>' }, { document: '<a/>' }, { error: 'only an error' }, {}, { document: '' },
    { document: 'ascii '.repeat(5000) },
    { document: 'x'.repeat(3 * 16 * 1024 * 3 + 1) }, { document: `${'é✓ '.repeat(40_000)}😀` }, { document: `${'a'.repeat(49_151)}é` }, { document: 'lone \uD800 surrogate' }, { document: '\u007f\u0080' }]) {
    assert.deepEqual(writeResponseBytes(ns, 'ProcessDocument', result), Buffer.from(writeResponse(ns, 'ProcessDocument', result), 'utf8'));
  }
});

test('a handler answering the document it got sends back the same bytes, canonically encoded', async (t) => {
  const seen: string[] = [];
  const url = await serve(t, (req) => {
    seen.push(req.document);
    return { document: req.document };
  });
  const cda = '<ClinicalDocument xmlns="urn:hl7-org:v3"><title>Ünïcode ✓</title></ClinicalDocument>';
  const canonical = Buffer.from(cda).toString('base64');
  const wrapped = canonical.replace(/(.{20})/g, '$1\r\n');
  for (const sent of [canonical, wrapped]) {
    const answer = await post(url, envelope(undefined, { documentXml: sent }));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answeredBase64(answer.root), canonical);
  }
  // 'x' carries a set bit before the padding: the answer is the canonical encoding of the same bytes.
  const loose = await post(url, envelope(undefined, { documentXml: 'dGVzdGluZx==' }));
  assert.equal(answeredBase64(loose.root), 'dGVzdGluZw==');
  // A byte-order mark is not part of the document the handler sees, nor of the answer.
  const bom = await post(url, envelope(undefined, { documentXml: Buffer.from(`\uFEFF${cda}`).toString('base64') }));
  assert.equal(answeredBase64(bom.root), canonical);
  assert.deepEqual(seen, [cda, cda, 'testing', cda]);
});

test('a handler answering another document gets that document encoded, and bad base64 is still a Client fault', async (t) => {
  const url = await serve(t, (req) => ({ document: `${req.document}!`, error: 'noted' }));
  const answer = await post(url, envelope('<a/>'));
  assert.equal(Buffer.from(answeredBase64(answer.root), 'base64').toString(), '<a/>!');
  const fault = readFault(await post(url, envelope(undefined, { documentXml: 'dGVz\u0141GluZw==' })));
  assert.equal(fault.type, 'InvalidParameter');
});
