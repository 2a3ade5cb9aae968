import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { CDSHooksService } from '../../src/cds/index.js';
import { CloudEventsDispatcher } from '../../src/events/index.js';
import { post } from '../cds/post-json.js';
import { startCdsClient } from '../support/cds-client.js';
import { startEventSink } from '../support/event-sink.js';
import { recordingDispatcher } from '../support/recording-dispatcher.js';
import { sandbox } from '../support/sandbox.js';
import { serve } from '../support/serve.js';
import { tinyproxy } from '../support/tinyproxy.js';

test('the CloudEvents sink is reached through the proxy', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sink = await startEventSink(t);
  const d = new CloudEventsDispatcher({ url: sink.url, source: 'urn:fhirgate:test', proxy: { http: proxy.url } });
  t.after(() => d.close());
  d.emit('fhir.patient.read', { resource_id: 'p1' });
  await d.drain();
  assert.equal(sink.requests.length, 1);
  assert.equal(sink.requests[0]?.headers.via?.includes('tinyproxy'), true, 'the sink got the request from the proxy');
  assert.deepEqual(proxy.requests(), [`POST ${sink.url} HTTP/1.1`]);
  assert.deepEqual(d.status(), { sent: 1, retried: 0, dropped: 0, queued: 0 });
});

test('CDS prefetch goes through the proxy to an allowlisted fhirServer; without fhirServers it is refused (the proxy resolves the address)', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sb = await sandbox(t, { open: true });
  const request = () => ({
    hook: 'patient-view',
    hookInstance: randomUUID(),
    context: { userId: 'Practitioner/doc', patientId: 'a-patient-1' },
    fhirServer: sb.fhirBase,
    fhirAuthorization: { access_token: 'ehr-token', token_type: 'Bearer', expires_in: 300, scope: 'patient/*.read', subject: 'svc' },
  });
  for (const allowlisted of [true, false]) {
    const seen: unknown[] = [];
    const cds = new CDSHooksService({ dispatcher: recordingDispatcher(), proxy: { http: proxy.url }, ...(allowlisted ? { fhirServers: [sb.fhirBase] } : {}) });
    cds.hook('patient-view', { id: 'svc', description: 'x', prefetch: { patient: 'Patient/{{context.patientId}}' } }, (req) => {
      seen.push(req.prefetch?.patient);
      return { cards: [] };
    });
    const { baseUrl } = await serve(t, cds);
    const r = await post(`${baseUrl}/cds-services/svc`, request());
    if (allowlisted) {
      assert.equal(r.status, 200);
      assert.equal((seen[0] as { id?: string }).id, 'a-patient-1');
    } else {
      assert.equal(r.status, 412);
    }
  }
  assert.deepEqual(proxy.requests(), [`GET ${sb.fhirBase}/Patient/a-patient-1 HTTP/1.1`]);
});

test("the CDS service fetches an EHR client's JWKS (jku) through the proxy; a NO_PROXY host directly", async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const client = await startCdsClient(t);
  const request = () => ({ hook: 'patient-view', hookInstance: randomUUID(), context: { userId: 'Practitioner/doc', patientId: '123' } });
  for (const noProxy of [undefined, '127.0.0.1']) {
    const cds = new CDSHooksService({
      dispatcher: recordingDispatcher(),
      auth: { issuers: [{ issuer: client.issuer, jwksUrls: [client.jwksUrl] }] },
      proxy: { http: proxy.url, ...(noProxy === undefined ? {} : { noProxy }) },
    });
    cds.hook('patient-view', { id: 'svc', description: 'x' }, () => ({ cards: [] }));
    const { baseUrl } = await serve(t, cds);
    const url = `${baseUrl}/cds-services/svc`;
    assert.equal((await post(url, request(), { authorization: `Bearer ${client.token(url)}` })).status, 200);
  }
  // Only the first service's fetch went through the proxy.
  assert.deepEqual(proxy.requests(), [`GET ${client.jwksUrl} HTTP/1.1`]);
});
