import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NoteReaderService } from '../../src/soap/index.js';
import { child, children, textContent } from '../../src/soap/xml-tree.js';
import { serve } from '../support/serve.js';
import { EPIC_NS, SOAP_NS, bodyChild, envelope, post } from '../support/soap-client.js';

const noEvents = { emit: () => {}, register: () => () => {}, drain: async () => {} };

/** The envelope of {@link envelope} with `header` as the content of its soap Header. */
function withHeader(header: string): string {
  return envelope('<ClinicalDocument/>').replace('<soapenv:Header/>', `<soapenv:Header>${header}</soapenv:Header>`);
}

test('a header entry with mustUnderstand="1" for this node is a MustUnderstand fault without detail (SOAP 1.1 §4.2.3, §4.4)', async (t) => {
  let calls = 0;
  const nr = new NoteReaderService({ dispatcher: noEvents });
  nr.method('ProcessDocument', () => {
    calls++;
    return 'ok';
  });
  const { baseUrl: url } = await serve(t, nr);
  const security = '<wsse:Security xmlns:wsse="urn:example:sec" soapenv:mustUnderstand="1"><wsse:Token>x</wsse:Token></wsse:Security>';
  const variants = [
    security,
    security.replace('soapenv:mustUnderstand="1"', 'soapenv:mustUnderstand="1" soapenv:actor="http://schemas.xmlsoap.org/soap/actor/next"'),
    security.replace('soapenv:mustUnderstand="1"', 'soapenv:mustUnderstand="true"'),
  ];
  for (const header of variants) {
    const answer = await post(url, withHeader(header));
    assert.equal(answer.status, 500);
    const fault = bodyChild(answer.root);
    assert.equal(fault.name, 'Fault');
    assert.equal(textContent(child(fault, 'faultcode')), 'soap:MustUnderstand');
    assert.match(textContent(child(fault, 'faultstring')), /\{urn:example:sec\}Security .*mustUnderstand/);
    assert.equal(child(fault, 'detail'), undefined);
    assert.match(answer.text, new RegExp(`xmlns:soap="${SOAP_NS}"`));
  }
  assert.equal(calls, 0, 'the handler never ran');
  const ignorable = [
    '<x:Trace xmlns:x="urn:example:trace">1</x:Trace>',
    '<x:Trace xmlns:x="urn:example:trace" soapenv:mustUnderstand="0">1</x:Trace>',
    '<x:Trace xmlns:x="urn:example:trace" soapenv:mustUnderstand="1" soapenv:actor="urn:example:other-node">1</x:Trace>',
    '<x:Trace xmlns:x="urn:example:trace" mustUnderstand="1">1</x:Trace>',
  ];
  for (const header of ignorable) {
    const answer = await post(url, withHeader(header));
    assert.equal(answer.status, 200, header);
    assert.equal(bodyChild(answer.root).uri, EPIC_NS);
    assert.equal(children(bodyChild(answer.root)).length, 1);
  }
  assert.equal(calls, ignorable.length);
});

test('understoodHeaders lets the application take responsibility for named header entries', async (t) => {
  const nr = new NoteReaderService({ dispatcher: noEvents, understoodHeaders: ['{urn:example:sec}Security'] });
  nr.method('ProcessDocument', () => 'ok');
  const { baseUrl: url } = await serve(t, nr);
  const header = (ns: string) => `<w:Security xmlns:w="${ns}" soapenv:mustUnderstand="1"/>`;
  assert.equal((await post(url, withHeader(header('urn:example:sec')))).status, 200);
  const other = await post(url, withHeader(header('urn:example:other')));
  assert.equal(other.status, 500);
  assert.equal(textContent(child(bodyChild(other.root), 'faultcode')), 'soap:MustUnderstand');
  for (const bad of ['Security', ['Security'], [1], ['{urn:x}'], ['{urn:x}a:b']]) {
    assert.throws(() => new NoteReaderService({ dispatcher: noEvents, understoodHeaders: bad as never }), { name: 'TypeError', message: /understoodHeaders/ });
  }
});
