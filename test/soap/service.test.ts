import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { MOUNT } from '../../src/mount/index.js';
import { NoteReaderService } from '../../src/soap/index.js';
import type { NoteReaderRequest, NoteReaderServiceOptions } from '../../src/soap/index.js';
import { child, children, textContent } from '../../src/soap/xml-tree.js';
import { recordingDispatcher } from '../support/recording-dispatcher.js';
import { serve as serveOnHost } from '../support/serve.js';
import { EPIC_NS, SOAP_NS, bodyChild, envelope, fixture, post } from '../support/soap-client.js';

async function serve(t: TestContext, setup: (nr: NoteReaderService) => void, options: NoteReaderServiceOptions = {}) {
  const rec = recordingDispatcher();
  const nr = new NoteReaderService({ dispatcher: rec, ...options });
  setup(nr);
  const served = await serveOnHost(t, nr, { dispatcher: rec });
  return { nr, ...served, events: rec.events };
}

function result(root: ReturnType<typeof bodyChild>) {
  assert.equal(root.name, 'ProcessDocumentResponse');
  assert.equal(root.uri, EPIC_NS);
  const res = child(root, 'ProcessDocumentResult');
  assert.equal(res?.uri, EPIC_NS);
  const doc = child(res, 'Document');
  const error = child(res, 'Error');
  return {
    names: children(res).map((c) => c.name),
    document: doc ? Buffer.from(textContent(doc), 'base64').toString('utf8') : undefined,
    error: error ? textContent(error) : undefined,
  };
}

test('the handler receives the decoded CDA and its answer comes back base64 in ProcessDocumentResult', async (t) => {
  const cda = fixture('epic_cda.xml');
  const seen: NoteReaderRequest[] = [];
  const { baseUrl, events } = await serve(t, (nr) =>
    nr.method('ProcessDocument', (req) => {
      seen.push(req);
      return { document: req.document.replace('John', 'Jöhn'), error: null };
    }),
  );
  const answer = await post(baseUrl, envelope(cda, { sessionId: 'abc', workType: '2', organizationId: 'UCLH' }), { soapaction: '"ProcessDocument"' });
  assert.equal(answer.status, 200);
  assert.equal(answer.contentType, 'text/xml; charset=utf-8');
  assert.equal(seen.length, 1);
  assert.deepEqual({ ...seen[0], document: undefined }, {
    operation: 'ProcessDocument', document: undefined, sessionId: 'abc', workType: '2', organizationId: 'UCLH',
  });
  assert.equal(seen[0]!.document, cda.replace(/^\uFEFF/, ''));
  const r = result(bodyChild(answer.root));
  assert.deepEqual(r.names, ['Document']);
  assert.equal(r.document, cda.replace('John', 'Jöhn'));
  assert.deepEqual(events, [[
    'notereader.processdocument',
    { session_id: 'abc', work_type: '2', organization_id: 'UCLH', has_error: false, document_bytes: Buffer.byteLength(cda) },
  ]]);
});

test('the fixture request envelope (prefixes soapenv and urn) reaches the handler', async (t) => {
  let got: NoteReaderRequest | undefined;
  const { baseUrl } = await serve(t, (nr) => nr.method('ProcessDocument', (req) => ((got = req), 'ok')));
  const answer = await post(`${baseUrl}/`, fixture('soap_request.xml'));
  assert.equal(answer.status, 200);
  assert.deepEqual(got, { operation: 'ProcessDocument', document: 'testing', sessionId: '0000-0000-0000-0000', workType: '2', organizationId: 'Testing' });
  assert.equal(result(bodyChild(answer.root)).document, 'ok');
});

test('a returned error is answered 200 with Error set, and the event says has_error', async (t) => {
  const { baseUrl, events } = await serve(t, (nr) => nr.method('ProcessDocument', async () => ({ error: 'No codes <found> & sorry' })));
  const answer = await post(baseUrl, envelope('<x/>'));
  assert.equal(answer.status, 200);
  const r = result(bodyChild(answer.root));
  assert.deepEqual(r.names, ['Error']);
  assert.equal(r.error, 'No codes <found> & sorry');
  assert.equal(events[0]?.[1].has_error, true);
});

test('a handler may answer both a document and an error', async (t) => {
  const { baseUrl } = await serve(t, (nr) => nr.method('ProcessDocument', (req) => ({ document: req.document, error: 'partial' })));
  const r = result(bodyChild((await post(baseUrl, envelope('<a>é</a>'))).root));
  assert.deepEqual(r, { names: ['Document', 'Error'], document: '<a>é</a>', error: 'partial' });
});

test('the wrapper form registers the handler and returns it unchanged', async (t) => {
  const handler = (req: NoteReaderRequest) => `wrapped:${req.document}`;
  let returned: unknown;
  const { baseUrl, nr } = await serve(t, (nr) => {
    returned = nr.method('ProcessDocument')(handler);
  });
  assert.equal(returned, handler);
  assert.deepEqual(nr.methods, ['ProcessDocument']);
  assert.equal(result(bodyChild((await post(baseUrl, envelope('d'))).root)).document, 'wrapped:d');
});

test('a Document sent as raw XML instead of base64 is accepted (HealthChain compatibility)', async (t) => {
  let got = '';
  const { baseUrl } = await serve(t, (nr) => nr.method('ProcessDocument', (req) => ((got = req.document), 'ok')));
  const raw = '<ClinicalDocument xmlns="urn:hl7-org:v3"><title>Note &amp; more</title><urn:x/></ClinicalDocument>';
  const answer = await post(baseUrl, envelope(undefined, { documentXml: raw }));
  assert.equal(answer.status, 200);
  assert.equal(got, `<ClinicalDocument xmlns="urn:hl7-org:v3"><title>Note &amp; more</title><urn:x xmlns:urn="${EPIC_NS}"></urn:x></ClinicalDocument>`);
});

test('SOAPAction may be quoted, unquoted, empty or a URI ending in the operation', async (t) => {
  const { baseUrl } = await serve(t, (nr) => nr.method('ProcessDocument', () => 'ok'));
  for (const action of ['ProcessDocument', '"ProcessDocument"', '""', `"${EPIC_NS}/ProcessDocument"`, 'urn:epic-com:Common.2013.Services#ProcessDocument']) {
    const answer = await post(baseUrl, envelope('d'), { soapaction: action });
    assert.equal(answer.status, 200, action);
  }
});

test('events go to the host dispatcher after useEvents, and nowhere after useEvents(null)', async (t) => {
  const own = recordingDispatcher();
  const host = recordingDispatcher();
  const nr = new NoteReaderService({ dispatcher: own });
  nr.method('ProcessDocument', () => 'ok');
  const face = nr[MOUNT]();
  const { baseUrl } = await serveOnHost(t, face);
  face.useEvents(host);
  await post(baseUrl, envelope('d'));
  face.useEvents(null);
  await post(baseUrl, envelope('d'));
  assert.equal(own.events.length, 0);
  assert.equal(host.events.length, 1);
});

test('GET without ?wsdl answers a short text description; with ?wsdl the WSDL', async (t) => {
  const { baseUrl } = await serve(t, (nr) => nr.method('ProcessDocument', () => 'ok'));
  const plain = await fetch(baseUrl);
  assert.equal(plain.status, 200);
  assert.match(plain.headers.get('content-type') ?? '', /^text\/plain/);
  const text = await plain.text();
  assert.match(text, /ProcessDocument/);
  assert.ok(text.includes(`${baseUrl}?wsdl`));
  for (const q of ['?wsdl', '?WSDL', '/?wsdl=']) {
    const wsdl = await fetch(baseUrl + q);
    assert.equal(wsdl.status, 200);
    assert.equal(wsdl.headers.get('content-type'), 'text/xml; charset=utf-8');
    assert.match(await wsdl.text(), /<wsdl:definitions/);
  }
});

test('the mount face: kind, default path, routes, status and OpenAPI', async () => {
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', () => 'ok');
  const face = nr[MOUNT]();
  assert.equal(face.kind, 'service');
  assert.equal(face.defaultPath, '/notereader');
  assert.deepEqual(face.routes().map((r) => [r.method, r.path, r.public ?? false]), [['POST', '', false], ['GET', '', true]]);
  assert.deepEqual(face.status(), { status: 'active', methods: ['ProcessDocument'] });
  const paths = face.openapi();
  assert.ok(paths['']?.post?.requestBody?.content['text/xml']);
  assert.equal(paths['']?.get?.parameters?.[0]?.name, 'wsdl');
  assert.ok(paths['']?.post?.responses['500']);
  await face.close();
  await face.close();
});

test('misuse throws at once: bad names, duplicate methods, bad options', () => {
  const nr = new NoteReaderService();
  assert.throws(() => nr.method('Process Document', () => 'x'), TypeError);
  assert.throws(() => nr.method('ProcessDocument', 'nope' as never), TypeError);
  nr.method('ProcessDocument', () => 'x');
  assert.throws(() => nr.method('ProcessDocument', () => 'y'), { code: 'ERR_DUPLICATE_NAME' });
  assert.throws(() => new NoteReaderService({ bodyLimit: 0 }), RangeError);
  assert.throws(() => new NoteReaderService({ maxDepth: 1.5 }), RangeError);
  assert.throws(() => new NoteReaderService({ namespace: '' }), TypeError);
  assert.throws(() => new NoteReaderService({ serviceName: 'a:b' }), /serviceName/);
  assert.throws(() => new NoteReaderService({ dispatcher: {} as never }), /dispatcher/);
  assert.throws(() => new NoteReaderService(null as never), TypeError);
});

test('a custom namespace is used for requests and answers', async (t) => {
  const ns = 'urn:example:notes';
  const { baseUrl } = await serve(t, (nr) => nr.method('ProcessDocument', () => 'ok'), { namespace: ns });
  const answer = await post(baseUrl, envelope('d', { namespace: ns }));
  assert.equal(answer.status, 200);
  const op = bodyChild(answer.root);
  assert.equal(op.uri, ns);
  assert.equal(answer.root.uri, SOAP_NS);
});

test('without a dispatcher option, events go to the process-wide localHandler', async (t) => {
  const { localHandler } = await import('../../src/events/index.js');
  const seen: string[] = [];
  const unregister = localHandler.register('notereader.*', ([name, payload]) => void seen.push(`${name}:${payload.session_id}`));
  t.after(unregister);
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', () => 'ok');
  const { baseUrl } = await serveOnHost(t, nr, { dispatcher: localHandler });
  await post(baseUrl, envelope('d', { sessionId: 'local-1' }));
  await localHandler.drain();
  assert.deepEqual(seen, ['notereader.processdocument:local-1']);
});

test('a dispatcher whose emit throws does not turn a good answer into a Server fault', async (t) => {
  const nr = new NoteReaderService({ dispatcher: { emit: () => { throw new Error('bus down'); }, register: () => () => {}, drain: async () => {} } });
  nr.method('ProcessDocument', () => 'ok');
  const { baseUrl } = await serveOnHost(t, nr);
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    const answer = await post(baseUrl, envelope('<ClinicalDocument/>'));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(bodyChild(answer.root).name, 'ProcessDocumentResponse');
  } finally {
    process.stderr.write = write;
  }
});
