// Every outgoing call a request causes carries a traceparent of the request's trace with a span id of its
// own, as the loopback server that received it saw it: facade pass-through, SMART discovery and the token
// request, CDS prefetch and the JWKS fetch of a CDS client's token, CloudEvents deliveries (each event's
// own trace, also when queued behind another request's), a read that waited for a pooled connection
// freed by another request; the AuditEvent batch is a trace of its own whose AuditEvent records the
// request's trace.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import { CDSHooksService } from '../../src/cds/index.js';
import { CloudEventsDispatcher } from '../../src/events/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { createServiceAPI, type ServiceAPI } from '../../src/host/index.js';
import { readTraceparent, type TraceContext } from '../../src/lib/trace-context.js';
import { startCdsClient } from '../support/cds-client.js';
import { facadeHarness } from '../support/facade-harness.js';
import { captureLogger } from '../support/logger.js';
import { recordingDispatcher } from '../support/recording-dispatcher.js';
import { serve } from '../support/serve.js';
import { startServer, until, type TestServer } from '../support/test-server.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const OTHER = '0af7651916cd43dd8448eb211c80319c';
const PARENT = '00f067aa0ba902b7';
const traceparent = (trace = TRACE) => `00-${trace}-${PARENT}-01`;
const patient = JSON.stringify({ resourceType: 'Patient', id: '1' });

/** The trace contexts `server` received, in order (`path` filters). */
function received(server: TestServer, path?: RegExp): (TraceContext | undefined)[] {
  return server.seen.filter((s) => path === undefined || path.test(s.url)).map((s) => readTraceparent(s.headers.traceparent));
}

/** Asserts that each context is of `trace`, with a span id of its own. */
function assertOwnSpans(contexts: readonly (TraceContext | undefined)[], trace = TRACE): void {
  assert.ok(contexts.length > 0);
  for (const c of contexts) {
    assert.equal(c?.traceId, trace);
    assert.notEqual(c.spanId, PARENT);
  }
  assert.equal(new Set(contexts.map((c) => c!.spanId)).size, contexts.length, 'each call its own span');
}

/** A host whose route `/go` runs `work`, answered once `work` is done. */
async function host(t: TestContext, work: () => Promise<unknown>, options: Parameters<typeof createServiceAPI>[0] = {}): Promise<{ app: ServiceAPI; go: (trace?: string) => Promise<number> }> {
  const app = createServiceAPI({ logger: captureLogger(), ...options });
  app.get('/go', async () => ({ done: Boolean(await work()) }));
  const server = await app.listen(0, '127.0.0.1');
  t.after(() => app.close());
  const { port } = server.address() as { port: number };
  return { app, go: async (trace) => (await fetch(`http://127.0.0.1:${port}/go`, { headers: { traceparent: traceparent(trace) } })).status };
}

test('facade pass-through: the source got the request trace', async (t) => {
  const ehr = await startServer(t, (_req, res) => res.end(patient));
  const key = 'paths-key-0123456789abcdef';
  const h = await facadeHarness(t, { ehr: `fhir://${ehr.url.slice(7)}/fhir/` }, { callers: [{ name: 'c', apiKey: key, sources: '*', scopes: 'system/*.rs' }] }, [key]);
  const res = await fetch(`${h.prefix}/ehr/Patient/1`, { headers: { 'x-api-key': key, traceparent: traceparent() } });
  assert.equal(res.status, 200);
  assertOwnSpans(received(ehr));
});

test('SMART discovery, the token request and the read: each in the request trace', async (t) => {
  const srv: TestServer = await startServer(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/r4/.well-known/smart-configuration') res.end(JSON.stringify({ token_endpoint: `${srv.url}/auth/token`, token_endpoint_auth_methods_supported: ['client_secret_basic'] }));
    else if (req.url === '/auth/token') res.end(JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 300 }));
    else res.end(patient);
  });
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  gw.addSource('s', `fhir://${srv.url.slice(7)}/r4/?client_id=app&client_secret=paths-secret`);
  const { go } = await host(t, () => gw.read('Patient', '1'));
  assert.equal(await go(), 200);
  assert.deepEqual(srv.seen.map((s) => s.url), ['/r4/.well-known/smart-configuration', '/auth/token', '/r4/Patient/1']);
  assertOwnSpans(received(srv));
});

test("CDS prefetch and the JWKS fetch that checks the client's token: in the hook call's trace", async (t) => {
  const fhir = await startServer(t, (_req, res) => res.end(patient));
  const client = await startCdsClient(t);
  const cds = new CDSHooksService({ dispatcher: recordingDispatcher(), fhirServers: [fhir.url], auth: { issuers: [{ issuer: client.issuer, jwksUrls: [client.jwksUrl] }] } });
  cds.hook('patient-view', { id: 'svc', description: 'x', prefetch: { patient: 'Patient/{{context.patientId}}' } }, () => ({ cards: [] }));
  const { baseUrl } = await serve(t, cds);
  const url = `${baseUrl}/cds-services/svc`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${client.token(url)}`, traceparent: traceparent() },
    body: JSON.stringify({
      hook: 'patient-view', hookInstance: randomUUID(), context: { userId: 'Practitioner/1', patientId: '1' },
      fhirServer: `${fhir.url}/r4`, fhirAuthorization: { access_token: 't', token_type: 'Bearer', expires_in: 300, scope: 'patient/*.read', subject: 'svc' },
    }),
  });
  assert.equal(res.status, 200, await res.text());
  assertOwnSpans(received(fhir));
  assertOwnSpans(client.traceparents.map((h) => readTraceparent(h)));
});

test("CloudEvents: each delivery carries its own event's trace, also when queued behind another request's", async (t) => {
  const upstream = await startServer(t, (_req, res) => res.end(patient));
  let release: () => void = () => {};
  const first = new Promise<void>((resolve) => (release = resolve));
  const sink = await startServer(t, (_req, res) => {
    if (sink.seen.length === 1) void first.then(() => res.writeHead(202).end());
    else res.writeHead(202).end();
  });
  const dispatcher = new CloudEventsDispatcher({ url: sink.url, source: 'urn:test', concurrency: 1 });
  t.after(() => dispatcher.close());
  const gw = new AsyncFHIRGateway({ dispatcher });
  t.after(() => gw.close());
  gw.addSource('s', `fhir://${upstream.url.slice(7)}/fhir`);
  const { go } = await host(t, () => gw.read('Patient', '1'), { dispatcher });
  assert.equal(await go(TRACE), 200);
  await until(() => sink.seen.length === 1, 'the first delivery');
  assert.equal(await go(OTHER), 200);
  release();
  await until(() => sink.seen.filter((s) => s.body.includes('fhir.patient.read')).length === 2, 'both reads delivered');
  const reads = sink.seen.filter((s) => s.body.includes('fhir.patient.read'));
  for (const seen of reads) {
    const event = JSON.parse(seen.body) as { data: { trace_id: string } };
    assert.equal(readTraceparent(seen.headers.traceparent)?.traceId, event.data.trace_id, 'the delivery continues its event\'s trace');
  }
  assert.deepEqual(reads.map((s) => readTraceparent(s.headers.traceparent)?.traceId).sort(), [OTHER, TRACE].sort());
});

test('a read that waited for a connection freed by another request keeps its own trace', async (t) => {
  const upstream = await startServer(t, (_req, res) => setTimeout(() => res.end(patient), 50));
  const gw = new AsyncFHIRGateway({ maxConnections: 1 });
  t.after(() => gw.close());
  gw.addSource('s', `fhir://${upstream.url.slice(7)}/fhir`);
  const { go } = await host(t, () => gw.read('Patient', '1'));
  assert.deepEqual(await Promise.all([go(TRACE), go(OTHER)]), [200, 200]);
  assert.deepEqual(received(upstream).map((c) => c?.traceId).sort(), [OTHER, TRACE].sort());
});

test("the AuditEvent batch is a trace of its own; its AuditEvent records the request's trace", async (t) => {
  const audit = await startServer(t, (_req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    const entries = (JSON.parse(body) as { entry: unknown[] }).entry;
    res.end(JSON.stringify({ resourceType: 'Bundle', type: 'batch-response', entry: entries.map(() => ({ response: { status: '201 Created' } })) }));
  });
  const ehr = await startServer(t, (_req, res) => res.end(patient));
  const key = 'paths-key-0123456789abcdef';
  const h = await facadeHarness(t, { ehr: `fhir://${ehr.url.slice(7)}/fhir/`, audit: `fhir://${audit.url.slice(7)}/fhir/` }, { callers: [{ name: 'c', apiKey: key, sources: ['ehr'], scopes: 'system/*.rs' }], audit: { source: 'audit', batchSize: 1 } }, [key]);
  assert.equal((await fetch(`${h.prefix}/ehr/Patient/1`, { headers: { 'x-api-key': key, traceparent: traceparent() } })).status, 200);
  await until(() => audit.seen.length > 0, 'the AuditEvent batch');
  const batch = readTraceparent(audit.seen[0]!.headers.traceparent);
  assert.ok(batch !== undefined && batch.traceId !== TRACE, 'the batch serves many requests: its own trace');
  assert.ok(audit.seen[0]!.body.includes(`00-${TRACE}-`), "the AuditEvent holds the request's traceparent");
});
