import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalEventDispatcher } from '../../src/events/index.js';
import type { EventPair } from '../../src/events/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { getGateway } from '../../src/host/index.js';
import { startApp } from '../support/serve.js';
import { call, checkOpenApi } from '../support/host-helpers.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

test('a custom route with an injected AsyncFHIRGateway reads from the sandbox; gateway endpoints are mounted', async (t) => {
  const sandbox = await testSandbox(t, { seed: 'a' });
  const gw = new AsyncFHIRGateway();
  gw.addSource('local', sandbox.connectionString());
  const dispatcher = new LocalEventDispatcher();
  const events: EventPair[] = [];
  dispatcher.register('fhir.*', (pair) => void events.push(pair));
  const { base, app } = await startApp(t, { dispatcher }, (a) => {
    a.registerGateway(gw);
    a.get('/summary/:id', { inject: { fhir: getGateway(AsyncFHIRGateway) } }, async (ctx) => {
      const patient = await ctx.deps.fhir.read('Patient', ctx.params.id, undefined, { signal: ctx.signal });
      return { id: patient.id, family: patient.name?.[0]?.family };
    });
  });
  gw.transform('Patient', async (id: string, source?: string) => {
    const patient = await gw.read('Patient', id, source);
    return { ...patient, active: false, meta: { tag: [{ code: 'transformed' }] } };
  });

  const summary = await call(base, '/summary/a-patient-1');
  assert.equal(summary.status, 200);
  assert.equal(summary.json().id, 'a-patient-1');
  assert.equal(typeof summary.json().family, 'string');

  const missing = await call(base, '/summary/nobody');
  assert.equal(missing.status, 404, 'an upstream 404 passes through');
  assert.equal(missing.json().error.code, 'ERR_FHIR_HTTP');

  const transformed = await call(base, '/fhir/transform/Patient/a-patient-1?source=local');
  assert.equal(transformed.status, 200);
  assert.match(String(transformed.headers['content-type']), /^application\/fhir\+json/);
  assert.equal(transformed.json().meta.tag[0].code, 'transformed');

  const status = (await call(base, '/gateway/status')).json();
  assert.equal(status.gateways.AsyncFHIRGateway.status, 'active');
  assert.ok(JSON.stringify(status.gateways.AsyncFHIRGateway).includes('local'));
  assert.ok(!JSON.stringify(status).includes('demo-secret'));

  const doc = (await call(base, '/openapi.json')).json();
  checkOpenApi(doc);
  assert.ok(Object.keys(doc.paths).some((p) => p.startsWith('/fhir/transform/Patient')), Object.keys(doc.paths).join(' '));
  assert.ok(doc.paths['/summary/{id}'].get);

  await dispatcher.drain();
  assert.ok(events.some(([name]) => name === 'fhir.patient.read'), 'the gateway emits through the app dispatcher');
  assert.equal(app.gateways.get('AsyncFHIRGateway'), gw);
});

test('CDS Hooks and NoteReader mount under their prefixes; the whole document passes the structural checks', async (t) => {
  const { CDSHooksService } = await import('../../src/cds/index.js');
  const { NoteReaderService } = await import('../../src/soap/index.js');
  const cds = new CDSHooksService();
  cds.hook('patient-view', { id: 'greeting', title: 'Greeting', description: 'Greets' }, async () => ({ cards: [] }));
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', ({ document }) => ({ document, error: null }));
  const { base } = await startApp(t, {}, (a) => {
    a.registerService(cds);
    a.registerService(nr);
  });
  const discovery = await call(base, '/cds/cds-services');
  assert.equal(discovery.status, 200);
  assert.equal(discovery.json().services[0].id, 'greeting');
  const wsdl = await call(base, '/notereader/?wsdl');
  assert.equal(wsdl.status, 200);
  assert.ok(wsdl.text.includes(`${base}/notereader`), 'the WSDL names the real address');
  for (const path of ['/notereader', '/notereader/']) {
    const res = await call(base, path, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ProcessDocument' }, body: '<not-soap/>' });
    assert.equal(res.status, 500, `${path} reaches the SOAP service, which answers a fault`);
    assert.match(res.text, /Fault/);
  }
  const doc = (await call(base, '/openapi.json')).json();
  checkOpenApi(doc);
  assert.ok(Object.keys(doc.paths).some((p) => p.startsWith('/cds/cds-services')));
  assert.ok(Object.keys(doc.paths).some((p) => p.startsWith('/notereader')));
  const status = (await call(base, '/gateway/status')).json();
  assert.equal(status.services.CDSHooksService.status, 'active');
  assert.ok(Array.isArray(status.services.CDSHooksService.hooks));
  assert.equal(status.services.NoteReaderService.status, 'active');
});
