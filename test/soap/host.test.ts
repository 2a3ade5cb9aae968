import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { EventPayload } from '../../src/events/types.js';
import { createServiceAPI } from '../../src/host/index.js';
import { NoteReaderService } from '../../src/soap/service.js';
import { child, textContent } from '../../src/soap/xml-tree.js';
import { captureLogger } from '../support/logger.js';
import { bodyChild, envelope, fixture, parse, post, readFault } from '../support/soap-client.js';
import { startApp } from '../support/serve.js';

test('through createServiceAPI: both paths, the WSDL address, events, faults and API keys', async (t) => {
  const events: [string, EventPayload][] = [];
  const logger = captureLogger();
  const app = createServiceAPI({
    dispatcher: { emit: (n, p) => void events.push([n, p]), register: () => () => {}, drain: async () => {} },
    apiKeys: ['k-123'],
    logger,
  });
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', (req) => ({ document: req.document.toUpperCase() }));
  app.registerService(nr);
  const server = await app.listen(0);
  t.after(() => app.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notereader`;
  const key = { 'x-api-key': 'k-123' };

  for (const url of [base, `${base}/`]) {
    const answer = await post(url, fixture('soap_request.xml'), key);
    assert.equal(answer.status, 200, answer.text);
    const doc = child(child(bodyChild(answer.root), 'ProcessDocumentResult'), 'Document');
    assert.equal(Buffer.from(textContent(doc), 'base64').toString(), 'TESTING');
  }
  assert.equal(events.length, 2);
  assert.equal(events[0]?.[0], 'notereader.processdocument');

  const wsdl = await fetch(`${base}?wsdl`);
  assert.equal(wsdl.status, 200, 'the WSDL is public');
  const address = child(child(child(parse(await wsdl.text()), 'service'), 'port'), 'address');
  assert.equal(address?.attributes.location, base);

  const fault = readFault(await post(base, envelope('x', { operation: 'Nope' }), key));
  assert.equal(fault.local, 'Client');
  const anonymous = await fetch(base, { method: 'POST', body: envelope('x'), headers: { 'content-type': 'text/xml' } });
  assert.equal(anonymous.status, 401, 'the POST asks for an API key');
});

test('through createServiceAPI: 413 past bodyLimit and 415 for another Content-Type', async (t) => {
  const nr = new NoteReaderService({ bodyLimit: 2000 });
  nr.method('ProcessDocument', () => 'ok');
  const started = await startApp(t, {}, (app) => app.registerService(nr, { path: '/nr' }));
  const base = `${started.base}/nr`;
  const big = await post(base, envelope('y'.repeat(5000)));
  assert.equal(big.status, 413);
  assert.equal(readFault(big).type, 'TooLarge');
  const json = await post(base, envelope('y'), { 'content-type': 'application/json' });
  assert.equal(json.status, 415);
  assert.equal(readFault(json).local, 'Client');
  assert.equal((await post(base, envelope('y'))).status, 200);
});
