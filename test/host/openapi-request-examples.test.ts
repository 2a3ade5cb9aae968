import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CDSHooksService } from '../../src/cds/index.js';
import { NoteReaderService, readCDA } from '../../src/soap/index.js';
import { startApp } from '../support/serve.js';

type Doc = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>> };

test('the request-body examples the docs page pre-fills are accepted by the services they document', async (t) => {
  const cds = new CDSHooksService();
  cds.hook('patient-view', { id: 'hello', description: 'says hello' }, (req) => ({
    cards: [{ summary: `hello ${String(req.context.patientId)}`, indicator: 'info', source: { label: 'test' } }],
  }));
  let problems = -1;
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', ({ document }) => {
    problems = readCDA(document).sections.length;
    return { document, error: '' };
  });
  const { base } = await startApp(t, {}, (app) => app.registerService(cds).registerService(nr));
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Doc;

  const call = doc.paths['/cds/cds-services/hello']!.post!.requestBody!.content['application/json']!.example;
  const cdsRes = await fetch(`${base}/cds/cds-services/hello`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) });
  assert.equal(cdsRes.status, 200);
  assert.equal(((await cdsRes.json()) as { cards: { summary: string }[] }).cards[0]!.summary, 'hello example');

  const feedback = doc.paths['/cds/cds-services/{id}/feedback']!.post!.requestBody!.content['application/json']!.example;
  const fbRes = await fetch(`${base}/cds/cds-services/hello/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(feedback) });
  assert.equal(fbRes.status, 200);

  const envelope = doc.paths['/notereader']!.post!.requestBody!.content['text/xml']!.example as string;
  const soapRes = await fetch(`${base}/notereader`, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' }, body: envelope });
  assert.equal(soapRes.status, 200, await soapRes.clone().text());
  assert.match(await soapRes.text(), /ProcessDocumentResponse/);
  assert.equal(problems, 1);
});
