import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Resource } from '../../src/fhir/index.js';
import { AsyncFHIRGateway, FHIRGateway } from '../../src/gateway/index.js';
import { startApp } from '../support/serve.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

async function metadata(t: Parameters<typeof startApp>[0], gw: AsyncFHIRGateway | FHIRGateway) {
  const { base } = await startApp(t, {}, (app) => app.registerGateway(gw));
  const res = await fetch(`${base}/fhir/metadata`);
  assert.equal(res.status, 200);
  return (await res.json()) as { fhirVersion: string };
}

test('GET /fhir/metadata reports FHIR 4.0.1 (R4, what the sources speak) by default, on both gateways', async (t) => {
  const a = new AsyncFHIRGateway({ events: false });
  t.after(() => a.close());
  assert.equal((await metadata(t, a)).fhirVersion, '4.0.1');
  const s = new FHIRGateway({ events: false });
  t.after(() => s.close());
  assert.equal((await metadata(t, s)).fhirVersion, '4.0.1');
});

test('the fhirVersion option changes what /fhir/metadata reports', async (t) => {
  const a = new AsyncFHIRGateway({ events: false, fhirVersion: '4.3.0' });
  t.after(() => a.close());
  assert.equal((await metadata(t, a)).fhirVersion, '4.3.0');
  const s = new FHIRGateway({ events: false, fhirVersion: '4.0.0' });
  t.after(() => s.close());
  assert.equal((await metadata(t, s)).fhirVersion, '4.0.0');
});

test('a fhirVersion that is not a version code is refused at once, naming the option', () => {
  for (const bad of ['R4', '4.0', '', '4.0.1 ', 'latest']) {
    assert.throws(() => new AsyncFHIRGateway({ fhirVersion: bad }), { name: 'RangeError', message: /options\.fhirVersion/ }, bad);
    assert.throws(() => new FHIRGateway({ fhirVersion: bad }), { name: 'RangeError', message: /options\.fhirVersion/ }, bad);
  }
  assert.throws(() => new AsyncFHIRGateway({ fhirVersion: 401 as unknown as string }), { name: 'TypeError', message: /options\.fhirVersion/ });
});

test('an unknown type name is "not a FHIR resource type name", with no R4B in the text', async (t) => {
  const gw = new AsyncFHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('x', 'fhir://127.0.0.1:9/fhir/');
  await assert.rejects(gw.read('Patent' as 'Patient', '1'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_INVALID_RESOURCE_TYPE');
    assert.match(err.message, /"Patent" is not a FHIR resource type name/);
    assert.doesNotMatch(err.message, /R4B/);
    return true;
  });
});

// An element the R4B models do not declare (here an R4-era extension-less custom element and an element
// of a future version) must survive a read, a transform endpoint and a write: fhirgate never strips JSON.
const UNKNOWN = { r4OnlyElement: { note: 'kept' }, _futureElement: [1, 2, 3] };

test('elements the TypeScript models do not know are passed through on read, transform and update, never dropped', async (t) => {
  const sandbox = await testSandbox(t, { seed: [{ resourceType: 'Patient', id: 'p1', ...UNKNOWN } as unknown as Resource] });
  const gw = new AsyncFHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('ehr', sandbox.connectionString());
  gw.transform('Patient', async (id, source) => ({ ...(await gw.read('Patient', id, source)), active: true }));
  const { base } = await startApp(t, {}, (app) => app.registerGateway(gw));

  const read = (await gw.read('Patient', 'p1', 'ehr')) as unknown as Record<string, unknown>;
  assert.deepEqual(read.r4OnlyElement, UNKNOWN.r4OnlyElement);
  assert.deepEqual(read._futureElement, UNKNOWN._futureElement);

  const res = await fetch(`${base}/fhir/transform/Patient/p1?source=ehr`);
  assert.equal(res.status, 200);
  const transformed = (await res.json()) as Record<string, unknown>;
  assert.equal(transformed.active, true);
  assert.deepEqual(transformed.r4OnlyElement, UNKNOWN.r4OnlyElement);

  const updated = (await gw.update({ ...(read as object), resourceType: 'Patient', id: 'p1', gender: 'other', r5Only: 'x' } as never, 'ehr')) as unknown as Record<string, unknown>;
  assert.equal(updated.r5Only, 'x');
  const stored = (await (await fetch(`${sandbox.fhirBase}/Patient/p1`, { headers: { authorization: `Bearer ${await token(sandbox.tokenUrl)}` } })).json()) as Record<string, unknown>;
  assert.equal(stored.r5Only, 'x', 'the server received the element the models do not declare');
  assert.deepEqual(stored.r4OnlyElement, UNKNOWN.r4OnlyElement);
});

async function token(url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('fhirgate-demo:demo-secret').toString('base64')}` },
    body: 'grant_type=client_credentials&scope=system%2F*.read',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
