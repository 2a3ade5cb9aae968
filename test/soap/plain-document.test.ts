import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import type { AddressInfo } from 'node:net';
import { NoteReaderService } from '../../src/soap/index.js';
import { readEnvelope } from '../../src/soap/read-envelope.js';
import { child, textContent } from '../../src/soap/xml-tree.js';
import { bigDocument, bodyChild, envelope, post, readFault } from './soap-client.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const LIMITS = { maxDepth: 64, maxElements: 1000 };

/** A NoteReader service on a real host whose handler answers the document it got; what it got is kept. */
async function echo(t: TestContext): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const app = createServiceAPI({ logger: quiet });
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', (req) => {
    seen.push(req.document);
    return { document: req.document };
  });
  app.registerService(nr, { path: '/nr' });
  const server = await app.listen(0, '127.0.0.1');
  t.after(() => app.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/nr`, seen };
}

function answered(root: Parameters<typeof bodyChild>[0]): string {
  const base64 = textContent(child(child(bodyChild(root), 'ProcessDocumentResult'), 'Document'));
  return Buffer.from(base64, 'base64').toString('utf8');
}

const CDA = bigDocument(300_000);
const B64 = Buffer.from(CDA).toString('base64');

test('a large base64 Document, on one line or in CRLF lines, reaches the handler whole and comes back', async (t) => {
  const { url, seen } = await echo(t);
  for (const documentXml of [B64, `\r\n${B64.replace(/(.{76})/g, '$1\r\n')}\r\n`, `\n\t ${B64.replace(/(.{64})/g, '$1\n')}  `]) {
    const answer = await post(url, envelope(undefined, { documentXml }));
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.ok(answered(answer.root) === CDA, 'the answer carries the document');
  }
  assert.equal(seen.length, 3);
  assert.ok(seen.every((document) => document === CDA), 'the handler got the exact document each time');
});

test('references, CDATA and comments inside a large Document are read as XML says', async (t) => {
  const { url, seen } = await echo(t);
  const cut = 100_001;
  const cases = [
    `&#${B64.charCodeAt(0)};${B64.slice(1, cut)}&#x${B64.charCodeAt(cut).toString(16)};${B64.slice(cut + 1)}`,
    `<![CDATA[${B64.slice(0, cut)}]]>${B64.slice(cut)}`,
    `${B64.slice(0, cut)}<!-- ${Buffer.from('not the document').toString('base64')}> -->${B64.slice(cut)}`,
    `${B64.slice(0, cut)}<?note ${B64.slice(0, 1000)}>?>${B64.slice(cut)}`,
  ];
  for (const documentXml of cases) {
    const answer = await post(url, envelope(undefined, { documentXml }));
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
  }
  assert.ok(seen.length === cases.length && seen.every((document) => document === CDA), 'every form gives the same document');
});

test('a > inside attribute values before the Document does not end a tag', async (t) => {
  const { url, seen } = await echo(t);
  const body = envelope(undefined, { documentXml: B64 })
    .replace('<urn:ProcessDocument>', `<urn:ProcessDocument hint="a>${B64.slice(0, 2000)}" other='>'>`)
    .replace('<urn:Document>', `<urn:Document note="x>${B64.slice(0, 600)}">`);
  const answer = await post(url, body);
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.ok(seen[0] === CDA);
});

test('a character XML forbids inside a large Document is the same InvalidXML fault, naming its place', async (t) => {
  const { url, seen } = await echo(t);
  for (const bad of ['\u0001', '\u001f', ']]>']) {
    const body = envelope(undefined, { documentXml: `${B64.slice(0, 200_000)}${bad}${B64.slice(200_000)}` });
    const at = body.indexOf('<urn:Document>') + '<urn:Document>'.length + 200_000;
    const answer = await post(url, body);
    assert.equal(answer.status, 500);
    const fault = readFault(answer);
    assert.equal(fault.type, 'InvalidXML', JSON.stringify(bad));
    const [reason, column] = bad === ']]>' ? ['the string "]]>" is disallowed in char data.', at + 3] : ['disallowed character.', at + 1];
    assert.equal(fault.faultstring, `Invalid XML: 1:${column}: ${reason}`, JSON.stringify(bad));
  }
  // DEL is a character XML 1.0 allows: the parser reads it, and the base64 decoder refuses it.
  const del = readFault(await post(url, envelope(undefined, { documentXml: `${B64.slice(0, 200_000)}\u007f${B64.slice(200_000)}` })));
  assert.equal(del.type, 'InvalidParameter');
  assert.equal(seen.length, 0);
});

test('a later error names the line and column counted over the Document lines', async (t) => {
  const { url } = await echo(t);
  const lines = B64.slice(0, 76 * 50).replace(/(.{76})/g, '$1\n');
  const body = envelope(undefined, { documentXml: `${lines}</urn:Document><urn:Extra>` }).replace('</urn:Document></urn:ProcessDocument>', '</urn:ProcessDocument>');
  const fault = readFault(await post(url, body));
  assert.equal(fault.type, 'InvalidXML');
  const before = body.slice(0, body.indexOf('</urn:ProcessDocument>'));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n') - 1 + '</urn:ProcessDocument>'.length;
  assert.match(fault.faultstring, new RegExp(`^Invalid XML: ${line}:${column}: `));
});

test('white space around the Document is trimmed as before, and a blank or bad Document is still refused', async (t) => {
  const { url, seen } = await echo(t);
  const nbsp = await post(url, envelope(undefined, { documentXml: `\u00a0 ${B64}\n\u00a0` }));
  assert.equal(nbsp.status, 200);
  assert.ok(seen[0] === CDA);
  const blank = readFault(await post(url, envelope(undefined, { documentXml: ' \r\n\u00a0 ' })));
  assert.deepEqual([blank.type, blank.faultstring], ['MissingParameter', 'Missing required parameter(s): Document']);
  const inner = readFault(await post(url, envelope(undefined, { documentXml: `${B64.slice(0, 1000)}\u00a0${B64.slice(1000)}` })));
  assert.deepEqual([inner.type, inner.faultstring], ['InvalidParameter', 'Invalid parameter: Document is not base64 of UTF-8 text']);
  const padded = readFault(await post(url, envelope(undefined, { documentXml: `${B64.slice(0, 1000)}==${B64.slice(1002)}` })));
  assert.equal(padded.type, 'InvalidParameter');
  assert.equal(seen.length, 1);
});

test('an envelope cut into two chunks at every byte gives the same parameters', async () => {
  const small = Buffer.from('<doc>é ✓ plain text for the parser to hand on around saxes</doc>'.repeat(12)).toString('base64');
  const body = Buffer.from(envelope(undefined, { documentXml: small }).replace('S-1', 'S-ü✓'));
  async function* two(at: number) {
    yield body.subarray(0, at);
    yield body.subarray(at);
  }
  for (let at = 0; at <= body.length; at += 1) {
    const message = await readEnvelope(two(at), LIMITS);
    assert.equal(message.params.get('Document'), small, `cut at ${at}`);
    assert.equal(message.params.get('SessionID'), 'S-ü✓', `cut at ${at}`);
  }
});

test('a Document whose content turns out to be XML is read as XML, and only the first Document counts', async (t) => {
  const { url, seen } = await echo(t);
  const xml = await post(url, envelope(undefined, { documentXml: `é, not base64 <ClinicalDocument xmlns="urn:hl7-org:v3"><title>T</title></ClinicalDocument>` }));
  assert.equal(xml.status, 200, xml.text.slice(0, 300));
  assert.equal(seen[0], '<ClinicalDocument xmlns="urn:hl7-org:v3"><title>T</title></ClinicalDocument>');
  const second = Buffer.from('the second document').toString('base64');
  const twice = envelope(undefined, { documentXml: B64 }).replace('</urn:Document>', `</urn:Document><urn:Document>${second}</urn:Document>`);
  assert.equal((await post(url, twice)).status, 200);
  assert.ok(seen[1] === CDA, 'the first Document');
});
