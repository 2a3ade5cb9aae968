// One federated search over two sources, traced with the real OpenTelemetry SDK (spans kept in memory):
// one trace, the caller's, with the tree server span → one `fhirgate.federated.source` span per source →
// that source's token fetch (`fhirgate.token` → its POST) and its GET as client spans with OpenTelemetry's
// HTTP attributes; the ids each upstream received are its client span's; the AuditEvent batch is a
// trace of its own (`fhirgate.audit.flush` → its POST); no attribute holds a token, a key or a secret.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { FHIRFacade } from '../../src/facade/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { createServiceAPI } from '../../src/host/index.js';
import { readTraceparent } from '../../src/lib/trace-context.js';
import { captureLogger } from '../support/logger.js';
import { sandbox } from '../support/sandbox.js';
import { startServer, until } from '../support/test-server.js';

const KEY = 'spans-api-key-0123456789abcdef';
const LAB_SECRET = 'lab-client-secret-9f8e7d6c5b4a';
const LAB_TOKEN = 'lab-access-token-1a2b3c4d5e6f';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
/** A search value that must not reach any span (search values may be patient data). */
const NAME = 'Zaphodbeeblebrox';

/** A FHIR server with its own token endpoint, recording what it received. */
async function lab(t: Parameters<typeof startServer>[0]) {
  return startServer(t, (req, res) => {
    res.writeHead(200, { 'content-type': req.url === '/token' ? 'application/json' : 'application/fhir+json' });
    if (req.url === '/token') res.end(JSON.stringify({ access_token: LAB_TOKEN, token_type: 'Bearer', expires_in: 300 }));
    else res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', total: 1, entry: [{ resource: { resourceType: 'Patient', id: 'l1' } }] }));
  });
}

test('a federated search is one trace: server span, a span per source, token and client spans, no secret in any attribute', async (t) => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('fhirgate-test');
  const ehr = await sandbox(t, { seed: [{ resourceType: 'Patient', id: 'e1', name: [{ family: NAME }] }] });
  const labServer = await lab(t);
  const labAuthority = labServer.url.slice(7);
  const gateway = new AsyncFHIRGateway({ maxRetries: 0 });
  gateway.addSource('ehr', ehr.connectionString());
  gateway.addSource('lab', `fhir://${labAuthority}/fhir?client_id=gw&client_secret=${LAB_SECRET}&token_url=${encodeURIComponent(`http://${labAuthority}/token`)}`);
  const ehrSecret = new URL(ehr.connectionString().replace(/^fhir:/, 'http:')).searchParams.get('client_secret')!;
  const app = createServiceAPI({ tracer, logger: captureLogger() });
  app.registerGateway(gateway, { path: '/fhir' });
  app.registerService(new FHIRFacade(gateway, { callers: [{ name: 'app', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }], audit: { source: 'ehr', batchSize: 1 } }), { path: '/fhir' });
  const server = await app.listen(0, '127.0.0.1');
  t.after(async () => {
    await app.close();
    await gateway.close();
  });
  const { port } = server.address() as { port: number };

  const res = await fetch(`http://127.0.0.1:${port}/fhir/all/Patient?name=${NAME}`, { headers: { 'x-api-key': KEY, traceparent: `00-${TRACE}-${PARENT}-01` } });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(((await res.json()) as { entry: unknown[] }).entry.length, 2);
  await until(() => exporter.getFinishedSpans().some((s) => s.kind === SpanKind.SERVER), 'the server span');
  await until(() => exporter.getFinishedSpans().some((s) => s.name === 'fhirgate.audit.flush'), 'the AuditEvent flush');

  const spans = exporter.getFinishedSpans();
  const request = spans.filter((s) => s.spanContext().traceId === TRACE);
  const byId = new Map(request.map((s) => [s.spanContext().spanId, s]));
  const parentOf = (s: ReadableSpan) => byId.get(s.parentSpanContext?.spanId ?? '');
  const childrenOf = (s: ReadableSpan) => request.filter((c) => c.parentSpanContext?.spanId === s.spanContext().spanId);

  const [serverSpan, ...more] = request.filter((s) => s.kind === SpanKind.SERVER);
  assert.ok(serverSpan !== undefined && more.length === 0, 'one server span');
  assert.equal(serverSpan.parentSpanContext?.spanId, PARENT, "the server span continues the caller's");
  const sources = childrenOf(serverSpan).filter((s) => s.name === 'fhirgate.federated.source');
  assert.deepEqual(sources.map((s) => s.attributes['fhirgate.source']).sort(), ['ehr', 'lab']);

  for (const source of sources) {
    const name = String(source.attributes['fhirgate.source']);
    const under = childrenOf(source);
    const token = under.find((s) => s.name === 'fhirgate.token');
    assert.ok(token !== undefined, `${name}: a token span`);
    const [tokenPost] = childrenOf(token);
    assert.equal(tokenPost?.kind, SpanKind.CLIENT, `${name}: the token request is a client span under the token span`);
    assert.equal(tokenPost.attributes['http.request.method'], 'POST');
    assert.equal(tokenPost.attributes['http.response.status_code'], 200);
    const gets = under.filter((s) => s.kind === SpanKind.CLIENT);
    assert.equal(gets.length, 1, `${name}: one client span for its search`);
    const get = gets[0]!;
    const origin = name === 'lab' ? labServer.url : ehr.origin;
    assert.equal(get.name, 'GET');
    assert.equal(get.attributes['http.request.method'], 'GET');
    assert.equal(get.attributes['server.address'], '127.0.0.1');
    assert.equal(get.attributes['server.port'], Number(new URL(origin).port));
    assert.equal(get.attributes['http.response.status_code'], 200);
    assert.equal(get.attributes['http.resend_count'], undefined, 'a first try is no resend');
    const url = String(get.attributes['url.full']);
    assert.ok(url.startsWith(`${origin}/`), url);
    assert.match(url, /[?&]name=REDACTED(&|$)/, 'query values redacted, names kept');
    assert.equal(get.status.code, SpanStatusCode.UNSET);
  }

  // What the lab received: each request's traceparent names the request's trace and its own client span.
  const labGet = labServer.seen.find((s) => s.url.startsWith('/fhir/Patient'));
  const labToken = labServer.seen.find((s) => s.url === '/token');
  const sent = readTraceparent(labGet?.headers.traceparent);
  assert.equal(sent?.traceId, TRACE);
  assert.equal(byId.get(sent!.spanId)?.kind, SpanKind.CLIENT, "the lab's traceparent is its client span's");
  assert.equal(parentOf(byId.get(sent!.spanId)!)?.attributes['fhirgate.source'], 'lab');
  assert.equal(byId.get(readTraceparent(labToken?.headers.traceparent)!.spanId)?.name, 'POST');
  assert.equal(labGet?.headers.authorization, `Bearer ${LAB_TOKEN}`, 'the token was used (and so is worth looking for)');

  // The AuditEvent batch serves many requests: its own trace, a root span and its POST under it.
  const flush = spans.find((s) => s.name === 'fhirgate.audit.flush')!;
  assert.equal(flush.parentSpanContext, undefined);
  assert.notEqual(flush.spanContext().traceId, TRACE);
  await until(() => exporter.getFinishedSpans().some((s) => s.parentSpanContext?.spanId === flush.spanContext().spanId && s.kind === SpanKind.CLIENT), 'the flush POST');

  // No attribute of any span holds a secret, a token, a key or a search value.
  const secrets = [KEY, LAB_SECRET, LAB_TOKEN, ehrSecret, NAME, 'Bearer'];
  for (const span of exporter.getFinishedSpans()) {
    for (const [key, value] of Object.entries(span.attributes)) {
      for (const secret of secrets) assert.ok(!String(value).includes(secret), `${span.name} ${key} holds ${secret}`);
    }
    assert.ok(!(span.status.message ?? '').includes(LAB_SECRET));
  }
});

test('a gateway with its own tracer, called outside any request: one trace, a root span fhirgate.call, a span per try', async (t) => {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('fhirgate-test');
  const upstream = await startServer(t, (_req, res) => {
    if (upstream.seen.length === 1) {
      res.writeHead(503);
      res.end();
    } else res.end(JSON.stringify({ resourceType: 'Patient', id: '1' }));
  });
  const gateway = new AsyncFHIRGateway({ tracer, retryBaseDelayMs: 1, maxRetryDelayMs: 10 });
  t.after(() => gateway.close());
  gateway.addSource('s', `fhir://${upstream.url.slice(7)}/fhir`);
  await gateway.read('Patient', '1');
  const spans = exporter.getFinishedSpans();
  const root = spans.find((s) => s.name === 'fhirgate.call');
  assert.ok(root !== undefined && root.parentSpanContext === undefined, 'a root span');
  const tries = spans.filter((s) => s.kind === SpanKind.CLIENT);
  assert.equal(tries.length, 2);
  assert.ok(tries.every((s) => s.parentSpanContext?.spanId === root.spanContext().spanId));
  assert.equal(tries[0]!.attributes['http.response.status_code'], 503);
  assert.equal(tries[0]!.attributes['error.type'], '503');
  assert.equal(tries[0]!.status.code, SpanStatusCode.ERROR);
  assert.equal(tries[1]!.attributes['http.resend_count'], 1);
  assert.deepEqual(
    upstream.seen.map((s) => readTraceparent(s.headers.traceparent)?.spanId),
    tries.map((s) => s.spanContext().spanId),
  );
  assert.throws(() => new AsyncFHIRGateway({ tracer: {} as never }), { name: 'TypeError', message: /options\.tracer must be an OpenTelemetry Tracer/ });
  assert.throws(() => new AsyncFHIRGateway({ tracers: tracer } as never), /tracer/);
});

test('a failed try is a client span with the ERR_ code as error.type', async (t) => {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('fhirgate-test');
  const upstream = await startServer(t, (req) => req.socket.destroy());
  const gateway = new AsyncFHIRGateway({ tracer, maxRetries: 0 });
  t.after(() => gateway.close());
  gateway.addSource('s', `fhir://${upstream.url.slice(7)}/fhir`);
  await assert.rejects(gateway.read('Patient', '1'), { code: 'ERR_NETWORK' });
  const client = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CLIENT);
  assert.equal(client?.attributes['error.type'], 'ERR_NETWORK');
  assert.equal(client?.status.code, SpanStatusCode.ERROR);
  assert.equal(exporter.getFinishedSpans().find((s) => s.name === 'fhirgate.call')?.attributes['error.type'], 'ERR_NETWORK');
});

test('fhirgate.pool.wait: a span only for the request that waited for a socket, in its own trace', async (t) => {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('fhirgate-test');
  const upstream = await startServer(t, (_req, res) => setTimeout(() => res.end(JSON.stringify({ resourceType: 'Patient', id: '1' })), 50));
  const gateway = new AsyncFHIRGateway({ tracer, maxConnections: 1 });
  t.after(() => gateway.close());
  gateway.addSource('s', `fhir://${upstream.url.slice(7)}/fhir`);
  await Promise.all([gateway.read('Patient', '1'), gateway.read('Patient', '1')]);
  const spans = exporter.getFinishedSpans();
  const waits = spans.filter((s) => s.name === 'fhirgate.pool.wait');
  assert.equal(waits.length, 1, 'one of the two waited');
  const root = spans.find((s) => s.spanContext().spanId === waits[0]!.parentSpanContext?.spanId);
  assert.equal(root?.name, 'fhirgate.call');
  const tryOfWaiter = spans.find((s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === waits[0]!.spanContext().traceId);
  assert.ok(tryOfWaiter !== undefined, "the waiter's try is in the waiter's trace");
  assert.equal(tryOfWaiter.parentSpanContext?.spanId, root.spanContext().spanId, "the try is the call's, beside its wait");
  assert.equal(new Set(upstream.seen.map((s) => readTraceparent(s.headers.traceparent)?.traceId)).size, 2, 'each call its own trace at the upstream');
});
