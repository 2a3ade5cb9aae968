/**
 * Shapes of XML that cost a parser more than their bytes: many attributes or namespace declarations on
 * one element, long attribute values, deep nesting. Each is refused by a limit as soon as it is exceeded,
 * or read at a cost that does not grow with the nesting depth.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { NoteReaderService, readCDA } from '../../src/soap/index.js';
import { readEnvelope } from '../../src/soap/read-envelope.js';
import type { NoteReaderServiceOptions } from '../../src/soap/index.js';
import { createSecureParser } from '../../src/soap/secure-parser.js';
import { serve as serveOnHost } from '../support/serve.js';
import { SOAP_NS, envelope, post, readFault } from './soap-client.js';

const noEvents = { emit: () => {}, register: () => () => {}, drain: async () => {} };

async function serve(t: TestContext, options: NoteReaderServiceOptions = {}) {
  let calls = 0;
  const nr = new NoteReaderService({ dispatcher: noEvents, ...options });
  nr.method('ProcessDocument', () => ((calls += 1), 'ok'));
  const served = await serveOnHost(t, nr);
  return { ...served, calls: () => calls };
}

/** `<a a0="1" … a{n-1}="1"/>` */
const manyAttributes = (n: number, name = (i: number) => `a${i}`) => `<a ${Array.from({ length: n }, (_, i) => `${name(i)}="1"`).join(' ')}/>`;

test('an element with more attributes than maxAttributes (default 128) is a Client fault; 128 are read', async (t) => {
  const s = await serve(t);
  const over = readFault(await post(s.baseUrl, envelope(undefined, { documentXml: manyAttributes(129) })));
  assert.equal(over.faultcode, 'soap:Client');
  assert.match(over.faultstring, /^Invalid XML: more than 128 attributes on one element/);
  assert.equal(s.calls(), 0);
  const at = await post(s.baseUrl, envelope(undefined, { documentXml: manyAttributes(128) }));
  assert.equal(at.status, 200);
  assert.equal(s.calls(), 1);
});

test('an element with more namespace declarations than maxNamespaceDeclarations (default 32) is a Client fault', async (t) => {
  const s = await serve(t);
  const over = readFault(await post(s.baseUrl, envelope(undefined, { documentXml: manyAttributes(33, (i) => `xmlns:p${i}`) })));
  assert.equal(over.faultcode, 'soap:Client');
  assert.match(over.faultstring, /^Invalid XML: more than 32 namespace declarations on one element/);
  const atLimit = await post(s.baseUrl, envelope(undefined, { documentXml: manyAttributes(32, (i) => (i === 0 ? 'xmlns' : `xmlns:p${i}`)) }));
  assert.equal(atLimit.status, 200);
  assert.equal(s.calls(), 1);
});

test('an attribute value longer than maxAttributeLength (default 65 536 characters) is a Client fault', async (t) => {
  const s = await serve(t);
  const over = readFault(await post(s.baseUrl, envelope(undefined, { documentXml: `<a b="${'v'.repeat(65_537)}"/>` })));
  assert.equal(over.faultcode, 'soap:Client');
  assert.match(over.faultstring, /^Invalid XML: an attribute value longer than 65536 characters/);
  assert.equal((await post(s.baseUrl, envelope(undefined, { documentXml: `<a b="${'v'.repeat(65_536)}"/>` }))).status, 200);
  assert.equal(s.calls(), 1);
});

test('the attribute limits are options of the service and of the CDA readers, checked like the others', async (t) => {
  const s = await serve(t, { maxAttributes: 300, maxNamespaceDeclarations: 40, maxAttributeLength: 100_000 });
  assert.equal((await post(s.baseUrl, envelope(undefined, { documentXml: manyAttributes(250) }))).status, 200);
  assert.equal((await post(s.baseUrl, envelope(undefined, { documentXml: manyAttributes(40, (i) => `xmlns:p${i}`) }))).status, 200);
  assert.equal((await post(s.baseUrl, envelope(undefined, { documentXml: `<a b="${'v'.repeat(90_000)}"/>` }))).status, 200);
  assert.throws(() => new NoteReaderService({ maxAttributes: 0 }), { name: 'RangeError', message: /options\.maxAttributes/ });
  assert.throws(() => new NoteReaderService({ maxAttributeLength: 1.5 }), { name: 'RangeError', message: /options\.maxAttributeLength/ });
  const cda = '<ClinicalDocument xmlns="urn:hl7-org:v3" classCode="DOCCLIN" moodCode="EVN"><title>t</title></ClinicalDocument>';
  assert.equal(readCDA(cda).header.title, 't');
  assert.throws(() => readCDA(cda, { maxAttributes: 2 }), { code: 'ERR_CDA', message: /more than 2 attributes/ });
  assert.throws(() => readCDA(cda, { maxNamespaceDeclarations: 0 }), { code: 'ERR_CDA', message: /more than 0 namespace declarations/ });
});

test('an element with 700 000 attributes is refused within the first 64 KiB, before the rest is read', () => {
  const text = `<s:Envelope xmlns:s="${SOAP_NS}"><s:Body><u:ProcessDocument xmlns:u="urn:x"><u:Document>${manyAttributes(700_000)}`;
  let opened = 0;
  const parser = createSecureParser({ maxDepth: 64, maxElements: 1000 }, 'ERR_SOAP_CLIENT', { open: () => void (opened += 1) });
  assert.throws(() => parser.write(text.slice(0, 65_536)), { code: 'ERR_SOAP_CLIENT', message: /more than 128 attributes/ });
  assert.equal(opened, 4, 'the element with the attributes never opened');
  const declarations = createSecureParser({ maxDepth: 64, maxElements: 1000 }, 'ERR_CDA', {});
  assert.throws(() => declarations.write(manyAttributes(200_000, (i) => `xmlns:p${i}`).slice(0, 65_536)), { code: 'ERR_CDA', message: /more than 32 namespace/ });
});

test('a 7.9 MiB Document of one element with 700 000 attributes is a soap:Client fault, and /health answers meanwhile', async (t) => {
  const s = await serve(t);
  const body = envelope(undefined, { documentXml: manyAttributes(700_000) });
  assert.ok(body.length > 7.8 * 1024 * 1024);
  const answer = post(s.baseUrl, body);
  const health = await fetch(`${s.base}/health`);
  assert.equal(health.status, 200);
  const fault = readFault(await answer);
  assert.equal(fault.faultcode, 'soap:Client');
  assert.match(fault.faultstring, /more than 128 attributes on one element/);
  assert.equal(s.calls(), 0);
});

/** CPU milliseconds of the fastest of `runs` reads of `body` through the envelope reader. */
async function fastestRead(body: string, runs = 3): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i += 1) {
    const start = process.cpuUsage();
    await readEnvelope((async function* () { yield Buffer.from(body); })(), { maxDepth: 1100, maxElements: 1_000_000 });
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

test('an element 1000 deep costs about what one at depth 5 does: prefixes are not looked up through every ancestor', async () => {
  // The same elements (40 000, with a prefixed attribute each) nested 1000 deep or side by side. Looking a
  // prefix up through the open elements made the nested body cost about nine times the flat one; a generous
  // bound of 4 leaves room for a loaded machine without letting that back.
  const open = '<p:e p:x="1">';
  const nested = `<p:r xmlns:p="urn:p">${`${open.repeat(1000)}${'</p:e>'.repeat(1000)}`.repeat(40)}</p:r>`;
  const flat = `<p:r xmlns:p="urn:p">${`${open}</p:e>`.repeat(40_000)}</p:r>`;
  const deep = await fastestRead(envelope(undefined, { documentXml: nested }));
  const shallow = await fastestRead(envelope(undefined, { documentXml: flat }));
  assert.ok(deep < 4 * shallow, `nested ${deep.toFixed(0)} ms CPU, flat ${shallow.toFixed(0)} ms CPU`);
});

test('a body whose chunks are all there at once is not read in one block: the event loop turns every 128 Ki characters', async () => {
  // The chunks of a socket's buffer come through `for await` as microtasks: without a turn of the event
  // loop, a host could answer nothing else (not even /health) until the whole body was parsed.
  const body = Buffer.from(envelope(undefined, { documentXml: `<r>${'<a/>'.repeat(200_000)}</r>` }));
  const chunks = Array.from({ length: Math.ceil(body.length / 65_536) }, (_, i) => body.subarray(i * 65_536, (i + 1) * 65_536));
  let turns = 0;
  let reading = true;
  const count = (): void => {
    turns += 1;
    if (reading) setImmediate(count);
  };
  setImmediate(count);
  await readEnvelope((async function* () { yield* chunks; })(), { maxDepth: 64, maxElements: 1_000_000 });
  reading = false;
  assert.ok(turns >= Math.floor(body.length / (128 * 1024)) - 1, `${turns} turns of the event loop while ${body.length} bytes were read`);
});
