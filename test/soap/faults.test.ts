import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { NoteReaderService } from '../../src/soap/index.js';
import type { NoteReaderHandler, NoteReaderServiceOptions } from '../../src/soap/index.js';
import { serve as serveOnHost } from '../support/serve.js';
import { EPIC_NS, SOAP_NS, envelope, post, readFault } from '../support/soap-client.js';

const noEvents = { emit: () => {}, register: () => () => {}, drain: async () => {} };

async function serve(t: TestContext, handler: NoteReaderHandler = () => 'ok', options: NoteReaderServiceOptions = {}) {
  const nr = new NoteReaderService({ dispatcher: noEvents, ...options });
  nr.method('ProcessDocument', handler);
  return serveOnHost(t, nr);
}

interface Expect {
  status: number;
  code: 'Client' | 'Server' | 'VersionMismatch';
  string: RegExp | string;
  type: string;
}

async function expectFault(url: string, body: string | Uint8Array, expected: Expect, headers: Record<string, string> = {}) {
  const answer = await post(url, body, headers);
  assert.equal(answer.status, expected.status, answer.text);
  assert.equal(answer.contentType, 'text/xml; charset=utf-8');
  const fault = readFault(answer);
  assert.equal(fault.faultcodeUri, SOAP_NS, 'the faultcode prefix is the envelope namespace');
  assert.equal(fault.local, expected.code);
  if (typeof expected.string === 'string') assert.equal(fault.faultstring, expected.string);
  else assert.match(fault.faultstring, expected.string);
  assert.equal(fault.type, expected.type);
  return fault;
}

const ENV = `<s:Envelope xmlns:s="${SOAP_NS}">`;

test('malformed XML is a Client fault "Invalid XML: …" with HTTP 500', async (t) => {
  const { baseUrl } = await serve(t);
  await expectFault(baseUrl, `${ENV}<s:Body><ProcessDocument>`, { status: 500, code: 'Client', string: /^Invalid XML: /, type: 'InvalidXML' });
  await expectFault(baseUrl, '', { status: 500, code: 'Client', string: /^Invalid XML: /, type: 'InvalidXML' });
});

test('a root other than Envelope, or an Envelope of another SOAP version, is refused', async (t) => {
  const { baseUrl } = await serve(t);
  await expectFault(baseUrl, '<Envelop/>', { status: 500, code: 'Client', string: /root element is not an Envelope/, type: 'InvalidEnvelope' });
  await expectFault(baseUrl, '<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body/></e:Envelope>', {
    status: 500, code: 'VersionMismatch', string: /Unsupported envelope namespace/, type: 'VersionMismatch',
  });
});

test('an Envelope without Body, or with an empty Body, is a Client fault', async (t) => {
  const { baseUrl } = await serve(t);
  await expectFault(baseUrl, `${ENV}<s:Header/></s:Envelope>`, { status: 500, code: 'Client', string: 'Missing SOAP Body', type: 'MissingBody' });
  await expectFault(baseUrl, `${ENV}<s:Body> </s:Body></s:Envelope>`, { status: 500, code: 'Client', string: /^Missing operation/, type: 'MissingOperation' });
});

test('an unknown operation, or a known one in another namespace, is "Unknown operation: …"', async (t) => {
  const { baseUrl } = await serve(t);
  await expectFault(baseUrl, envelope('d', { operation: 'DeleteEverything' }), { status: 500, code: 'Client', string: 'Unknown operation: DeleteEverything', type: 'UnknownOperation' });
  await expectFault(baseUrl, envelope('d', { namespace: 'urn:other' }), { status: 500, code: 'Client', string: 'Unknown operation: {urn:other}ProcessDocument', type: 'UnknownOperation' });
});

test('missing parameters are listed in the fault', async (t) => {
  const { baseUrl } = await serve(t);
  await expectFault(baseUrl, envelope(undefined, { sessionId: undefined, workType: '  ' }), {
    status: 500, code: 'Client', string: 'Missing required parameter(s): SessionID, WorkType, Document', type: 'MissingParameter',
  });
});

test('a Document that is not strict base64 of UTF-8 text is a Client fault', async (t) => {
  const { baseUrl } = await serve(t);
  for (const bad of ['dGVzdGluZw', 'dGVz-GluZw==', 'dGV=dGluZw==', '%%%%', Buffer.from([0xff, 0xfe, 0x00]).toString('base64')]) {
    await expectFault(baseUrl, envelope(undefined, { documentXml: bad }), { status: 500, code: 'Client', string: /^Invalid parameter: Document/, type: 'InvalidParameter' });
  }
  const wrapped = Buffer.from('<ok/>').toString('base64').replace(/(.{2})/g, '$1\r\n ');
  const answer = await post(baseUrl, envelope(undefined, { documentXml: wrapped }));
  assert.equal(answer.status, 200, 'white space and line breaks are allowed');
});

test('a SOAPAction that names another operation is a Client fault', async (t) => {
  const { baseUrl } = await serve(t);
  await expectFault(baseUrl, envelope('d'), { status: 500, code: 'Client', string: /SOAPAction "Other" does not name the operation ProcessDocument/, type: 'ActionMismatch' }, { soapaction: '"Other"' });
  await expectFault(baseUrl, envelope('d'), { status: 500, code: 'Client', string: /does not name/, type: 'ActionMismatch' }, { soapaction: 'XProcessDocument' });
});

test('a Content-Type other than text/xml (UTF-8) is answered 415 with a Client fault', async (t) => {
  const { baseUrl } = await serve(t);
  for (const ct of ['application/soap+xml; charset=utf-8', 'application/json', 'text/xml; charset=iso-8859-1']) {
    await expectFault(baseUrl, envelope('d'), { status: 415, code: 'Client', string: /^Unsupported Content-Type/, type: 'UnsupportedMediaType' }, { 'content-type': ct });
  }
  const ok = await post(baseUrl, envelope('d'), { 'content-type': 'Text/XML; Charset="UTF-8"' });
  assert.equal(ok.status, 200);
  const none = await fetch(baseUrl, { method: 'POST', body: new Blob([envelope('d')]) });
  assert.equal(none.status, 415);
});

test('a body over bodyLimit is answered 413 with a Client fault', async (t) => {
  const { baseUrl } = await serve(t, () => 'ok', { bodyLimit: 4096 });
  await expectFault(baseUrl, envelope('x'.repeat(8192)), { status: 413, code: 'Client', string: 'Request body too large', type: 'TooLarge' });
  assert.equal((await post(baseUrl, envelope('x'.repeat(1000)))).status, 200);
});

test('bytes that are not UTF-8, or an XML declaration of another encoding, are Client faults', async (t) => {
  const { baseUrl } = await serve(t);
  const latin = Buffer.concat([Buffer.from(envelope('d').slice(0, 40)), Buffer.from([0xe9]), Buffer.from(envelope('d').slice(40))]);
  await expectFault(baseUrl, latin, { status: 500, code: 'Client', string: /not valid UTF-8/, type: 'InvalidXML' });
  await expectFault(baseUrl, `<?xml version="1.0" encoding="ISO-8859-1"?>${envelope('d')}`, { status: 500, code: 'Client', string: /unsupported encoding/, type: 'InvalidXML' });
  assert.equal((await post(baseUrl, `<?xml version="1.0" encoding="UTF-8"?>${envelope('d')}`)).status, 200);
});

test('a handler that throws gives a generic Server fault; the details go to the log only', async (t) => {
  const { baseUrl, logs } = await serve(t, () => {
    throw new Error('database password is hunter2');
  });
  const fault = await expectFault(baseUrl, envelope('d'), { status: 500, code: 'Server', string: 'Internal server error', type: 'Internal' });
  assert.ok(!JSON.stringify(fault).includes('hunter2'));
  const line = logs.find((l) => l.level === 'error');
  assert.match(String(line?.fields?.error), /hunter2/);
  assert.ok(!String(line?.fields?.error).includes(' at '), 'no stack trace in the log');
});

test('a handler that returns something unusable gives a Server fault', async (t) => {
  const { baseUrl } = await serve(t, () => 42 as never);
  await expectFault(baseUrl, envelope('d'), { status: 500, code: 'Server', string: 'Internal server error', type: 'Internal' });
  const { baseUrl: url2 } = await serve(t, () => ({ document: 5 }) as never);
  await expectFault(url2, envelope('d'), { status: 500, code: 'Server', string: 'Internal server error', type: 'Internal' });
});

test('fault details are in the service namespace and the text is escaped', async (t) => {
  const { baseUrl } = await serve(t);
  const answer = await post(baseUrl, envelope('d', { operation: 'A_b' }));
  assert.match(answer.text, new RegExp(`<tns:ClientFault xmlns:tns="${EPIC_NS}">`));
  const fault = readFault(answer);
  assert.equal(fault.faultstring, 'Unknown operation: A_b');
});

test('text from the request is clipped before it goes into a faultstring', async (t) => {
  const { baseUrl } = await serve(t);
  const longNs = `urn:${'n'.repeat(5000)}`;
  const fault = await expectFault(baseUrl, envelope('d', { namespace: longNs }), { status: 500, code: 'Client', string: /^Unknown operation: \{urn:n+…$/, type: 'UnknownOperation' });
  assert.ok(fault.faultstring.length <= 220);
});
