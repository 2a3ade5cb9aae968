import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { NoteReaderService } from '../../src/soap/service.js';
import { child, textContent } from '../../src/soap/xml-tree.js';
import { serve } from '../support/serve.js';
import { bigDocument, bodyChild, envelope, post } from '../support/soap-client.js';
import { helperScript, LOADER } from '../support/code-tree.js';

const MiB = 1024 * 1024;

test('a 10 MiB document (base64 in lines of 76) is decoded whole and answered', { timeout: 300_000 }, async (t) => {
  const nr = new NoteReaderService({ bodyLimit: 16 * MiB, dispatcher: { emit: () => {}, register: () => () => {}, drain: async () => {} } });
  let received = '';
  nr.method('ProcessDocument', (req) => {
    received = req.document;
    return { document: req.document.slice(-5000) };
  });
  const { baseUrl } = await serve(t, nr);
  const doc = bigDocument(10 * MiB);
  assert.equal(Buffer.byteLength(doc), 10 * MiB);
  const body = Buffer.from(envelope(doc).replace(/([A-Za-z0-9+/=]{76})/g, '$1\r\n'));
  assert.ok(body.length > 13 * MiB);
  const answer = await post(baseUrl, body);
  assert.equal(answer.status, 200);
  assert.ok(received === doc, 'the handler got the exact document');
  const document = child(child(bodyChild(answer.root), 'ProcessDocumentResult'), 'Document');
  assert.equal(Buffer.from(textContent(document), 'base64').toString('utf8'), doc.slice(-5000));
});

test('repeated 10 MiB calls do not make the heap grow', { timeout: 600_000 }, async () => {
  const probe = helperScript(import.meta.url, './heap-probe');
  const env = { ...process.env };
  delete env.NODE_V8_COVERAGE;
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', ...LOADER, probe], {
    env,
    maxBuffer: 1 << 20,
  });
  const { heap } = JSON.parse(stdout) as { heap: number[] };
  assert.equal(heap.length, 6);
  // The first calls warm up; afterwards each call must give back what it took. Keeping one request's
  // data would add more than 10 MiB a call, over 30 MiB across the last three.
  const growth = heap.at(-1)! - heap[2]!;
  assert.ok(growth < 12 * MiB, `heap grew by ${(growth / MiB).toFixed(1)} MiB: ${heap.map((h) => (h / MiB).toFixed(0)).join(', ')} MiB`);
});
