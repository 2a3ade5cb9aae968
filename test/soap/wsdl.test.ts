import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NoteReaderService } from '../../src/soap/service.js';
import { child, children } from '../../src/soap/xml-tree.js';
import type { XMLElement } from '../../src/soap/xml-tree.js';
import { serve } from '../support/serve.js';
import { EPIC_NS, parse } from '../support/soap-client.js';

const WSDL = 'http://schemas.xmlsoap.org/wsdl/';
const WSDL_SOAP = 'http://schemas.xmlsoap.org/wsdl/soap/';
const XS = 'http://www.w3.org/2001/XMLSchema';

function named(parent: XMLElement | undefined, local: string, name: string): XMLElement {
  const found = children(parent, local).find((e) => e.attributes.name === name);
  assert.ok(found, `${local} named ${name}`);
  return found;
}

test('the WSDL describes types, messages, port type, binding and the real service address', async (t) => {
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', () => 'ok');
  const { baseUrl } = await serve(t, nr);
  const res = await fetch(`${baseUrl}?wsdl`);
  assert.equal(res.headers.get('content-type'), 'text/xml; charset=utf-8');
  const root = parse(await res.text());
  assert.equal(root.name, 'definitions');
  assert.equal(root.uri, WSDL);
  assert.equal(root.attributes.targetNamespace, EPIC_NS);

  const schema = child(root, 'types', 'schema')!;
  assert.equal(schema.uri, XS);
  assert.equal(schema.attributes.targetNamespace, EPIC_NS);
  const request = named(schema, 'element', 'ProcessDocument');
  const fields = children(child(request, 'complexType', 'sequence'), 'element').map((e) => [e.attributes.name, e.attributes.type]);
  assert.deepEqual(fields, [['SessionID', 'xs:string'], ['WorkType', 'xs:string'], ['OrganizationID', 'xs:string'], ['Document', 'xs:base64Binary']]);
  const response = named(schema, 'element', 'ProcessDocumentResponse');
  assert.equal(child(response, 'complexType', 'sequence', 'element')?.attributes.name, 'ProcessDocumentResult');
  const result = named(schema, 'complexType', 'DocumentResponse');
  assert.deepEqual(children(child(result, 'sequence'), 'element').map((e) => e.attributes.name), ['Document', 'Error']);
  for (const f of ['ClientFault', 'ServerFault']) {
    assert.equal(child(named(schema, 'element', f), 'complexType', 'sequence', 'element')?.attributes.name, 'Type');
  }

  for (const m of ['ProcessDocument', 'ProcessDocumentResponse', 'ClientFault', 'ServerFault']) {
    assert.equal(child(named(root, 'message', m), 'part')?.attributes.element, `tns:${m}`);
  }

  const portType = named(root, 'portType', 'ICDSServices');
  const op = named(portType, 'operation', 'ProcessDocument');
  assert.equal(child(op, 'input')?.attributes.message, 'tns:ProcessDocument');
  assert.equal(child(op, 'output')?.attributes.message, 'tns:ProcessDocumentResponse');
  assert.deepEqual(children(op, 'fault').map((f) => f.attributes.message), ['tns:ClientFault', 'tns:ServerFault']);

  const binding = named(root, 'binding', 'ICDSServices');
  assert.equal(binding.attributes.type, 'tns:ICDSServices');
  const soapBinding = child(binding, 'binding')!;
  assert.equal(soapBinding.uri, WSDL_SOAP);
  assert.deepEqual([soapBinding.attributes.style, soapBinding.attributes.transport], ['document', 'http://schemas.xmlsoap.org/soap/http']);
  const bop = named(binding, 'operation', 'ProcessDocument');
  const soapOp = children(bop, 'operation')[0]!;
  assert.equal(soapOp.uri, WSDL_SOAP);
  assert.equal(soapOp.attributes.soapAction, 'ProcessDocument');
  assert.equal(child(bop, 'input', 'body')?.attributes.use, 'literal');
  assert.equal(child(bop, 'output', 'body')?.attributes.use, 'literal');

  const service = named(root, 'service', 'CDSServices');
  const port = named(service, 'port', 'ICDSServices');
  assert.equal(port.attributes.binding, 'tns:ICDSServices');
  const address = child(port, 'address')!;
  assert.equal(address.uri, WSDL_SOAP);
  assert.equal(address.attributes.location, baseUrl);
});

test('the WSDL follows the namespace, service and port options and lists every method', async (t) => {
  const nr = new NoteReaderService({ namespace: 'urn:example:x&y', serviceName: 'Notes', portName: 'INotes' });
  nr.method('ProcessDocument', () => 'ok').method('AnalyzeNote', () => 'ok');
  const { baseUrl } = await serve(t, nr, { path: '/soap/nr' });
  const root = parse(await (await fetch(`${baseUrl}?wsdl`)).text());
  assert.equal(root.attributes.targetNamespace, 'urn:example:x&y');
  const binding = named(root, 'binding', 'INotes');
  assert.deepEqual(children(binding, 'operation').map((o) => children(o, 'operation')[0]?.attributes.soapAction), ['ProcessDocument', 'AnalyzeNote']);
  const port = named(named(root, 'service', 'Notes'), 'port', 'INotes');
  assert.equal(child(port, 'address')?.attributes.location, baseUrl);
  assert.ok(baseUrl.endsWith('/soap/nr'));
});
