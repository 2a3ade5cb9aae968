import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { NoteReaderService, readCDA, enrichCDA } from '../../src/soap/index.js';
import type { NoteReaderServiceOptions } from '../../src/soap/index.js';
import { serve as serveOnHost } from '../support/serve.js';
import { SOAP_NS, envelope, post, readFault } from '../support/soap-client.js';

const noEvents = { emit: () => {}, register: () => () => {}, drain: async () => {} };

async function serve(t: TestContext, options: NoteReaderServiceOptions = {}) {
  let calls = 0;
  const nr = new NoteReaderService({ dispatcher: noEvents, ...options });
  nr.method('ProcessDocument', () => ((calls += 1), 'ok'));
  const served = await serveOnHost(t, nr);
  return { ...served, calls: () => calls };
}

const XXE = `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`;
const LAUGHS =
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('') +
  ']>';

test('an envelope with a DOCTYPE (XXE) is refused before the handler runs', async (t) => {
  const s = await serve(t);
  const body = XXE + envelope(undefined, { documentXml: '&xxe;' });
  const fault = readFault(await post(s.baseUrl, body));
  assert.equal(fault.local, 'Client');
  assert.match(fault.faultstring, /DOCTYPE is not allowed/);
  assert.equal(s.calls(), 0);
});

test('a billion-laughs payload is refused without expanding anything', async (t) => {
  const s = await serve(t);
  const answer = await post(s.baseUrl, LAUGHS + envelope(undefined, { documentXml: '&lol9;' }));
  assert.equal(answer.status, 500);
  assert.match(readFault(answer).faultstring, /DOCTYPE is not allowed/);
  assert.ok(answer.text.length < 2000);
  assert.equal(s.calls(), 0);
});

test('an entity reference without a DOCTYPE is refused; the predefined ones and character references are fine', async (t) => {
  const s = await serve(t);
  const bad = await post(s.baseUrl, envelope(undefined, { documentXml: '&ent;' }));
  assert.match(readFault(bad).faultstring, /^Invalid XML: .*undefined entity/);
  const good = await post(s.baseUrl, envelope('d', { sessionId: '&lt;&amp;&#65;&#x42;' }));
  assert.equal(good.status, 200);
  assert.equal(s.calls(), 1);
});

test('nesting deeper than maxDepth and more elements than maxElements are refused', async (t) => {
  const s = await serve(t, { maxDepth: 12, maxElements: 40 });
  const deep = '<a>'.repeat(20) + '</a>'.repeat(20);
  const f1 = readFault(await post(s.baseUrl, envelope(undefined, { documentXml: deep })));
  assert.match(f1.faultstring, /nesting deeper than 12/);
  const many = '<a/>'.repeat(50);
  const f2 = readFault(await post(s.baseUrl, envelope(undefined, { documentXml: many })));
  assert.match(f2.faultstring, /more than 40 elements/);
  assert.equal(s.calls(), 0);
});

test('a DOCTYPE in a raw-XML Document inside the envelope cannot appear (not well-formed there)', async (t) => {
  const s = await serve(t);
  const answer = await post(s.baseUrl, `<s:Envelope xmlns:s="${SOAP_NS}"><s:Body>${'<!DOCTYPE x>'}</s:Body></s:Envelope>`);
  assert.equal(readFault(answer).local, 'Client');
  assert.equal(s.calls(), 0);
});

test('the CDA helpers refuse XXE and entity expansion too', () => {
  const cda = '<ClinicalDocument xmlns="urn:hl7-org:v3"><title>&xxe;</title></ClinicalDocument>';
  assert.throws(() => readCDA(XXE + cda), { code: 'ERR_CDA', message: /DOCTYPE/ });
  assert.throws(() => readCDA(LAUGHS + cda), { code: 'ERR_CDA', message: /DOCTYPE/ });
  assert.throws(() => readCDA(cda), { code: 'ERR_CDA', message: /undefined entity/ });
  assert.throws(() => enrichCDA(XXE + cda, { problems: [{ text: 'x' }] }), { code: 'ERR_CDA', message: /DOCTYPE/ });
});
