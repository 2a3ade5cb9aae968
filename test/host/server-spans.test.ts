// The host with an OpenTelemetry tracer (the real SDK, spans kept in memory): one server span per request
// named by its route, with OpenTelemetry's HTTP attributes, a child of the caller's traceparent, the parent
// of what the handler starts, and its ids the ones the answer's X-Trace-ID and the handler's trace name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { FhirgateError } from '../../src/errors.js';
import { createServiceAPI } from '../../src/host/index.js';
import { startApp } from '../support/serve.js';
import { call } from '../support/host-helpers.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('fhirgate-test') };
}

test('each request is a server span: route, method, status, parent from traceparent, ids in X-Trace-ID', async (t) => {
  const { exporter, tracer } = memoryTracer();
  const { base } = await startApp(t, { tracer }, (a) => {
    a.get('/patients/:id', (ctx) => ({ spanId: ctx.trace.spanId, traceId: ctx.trace.traceId }));
    a.get('/boom', () => {
      throw new FhirgateError('ERR_TIMEOUT', 'the upstream took too long');
    });
  });
  const answer = await call(base, '/patients/7?x=1', { headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
  assert.equal(answer.status, 200);
  const body = answer.json() as { spanId: string; traceId: string };
  const [span] = exporter.getFinishedSpans();
  assert.ok(span);
  assert.equal(span.name, 'GET /patients/:id');
  assert.equal(span.kind, SpanKind.SERVER);
  assert.equal(span.spanContext().traceId, TRACE);
  assert.equal(span.parentSpanContext?.spanId, PARENT);
  assert.equal(span.spanContext().spanId, body.spanId, "the handler's trace is the server span");
  assert.equal(answer.headers['x-trace-id'], TRACE);
  assert.deepEqual(
    { ...span.attributes },
    { 'http.request.method': 'GET', 'url.path': '/patients/7', 'url.scheme': 'http', 'http.route': '/patients/:id', 'http.response.status_code': 200 },
  );

  exporter.reset();
  const failed = await call(base, '/boom');
  assert.ok(failed.status >= 500, String(failed.status));
  const [error] = exporter.getFinishedSpans();
  assert.equal(error?.status.code, SpanStatusCode.ERROR);
  assert.equal(error?.attributes['error.type'], 'ERR_TIMEOUT');
  assert.equal(error?.attributes['http.response.status_code'], failed.status);
  assert.equal(error?.parentSpanContext, undefined, 'no traceparent: a root span of a new trace');
  assert.equal(failed.headers['x-trace-id'], error?.spanContext().traceId);

  exporter.reset();
  const missing = await call(base, '/nowhere');
  assert.equal(missing.status, 404);
  assert.equal(exporter.getFinishedSpans()[0]?.name, 'GET', 'no route: the method alone');
});

test('a tracer option without startSpan is refused', () => {
  assert.throws(() => createServiceAPI({ tracer: {} as never }), { name: 'TypeError', message: /options\.tracer must be an OpenTelemetry Tracer/ });
});

test("a span its sampler dropped (isRecording false) is ended and gets no attribute, name or status after its start", async (t) => {
  const calls: string[] = [];
  const span = {
    spanContext: () => ({ traceId: TRACE, spanId: PARENT, traceFlags: 0 }),
    isRecording: () => false,
    setAttribute: (key: string) => void calls.push(`setAttribute ${key}`),
    setStatus: () => void calls.push('setStatus'),
    updateName: () => void calls.push('updateName'),
    end: () => void calls.push('end'),
  };
  const { base } = await startApp(t, { tracer: { startSpan: () => span } }, (a) => {
    a.get('/patients/:id', () => ({ ok: true }));
    a.get('/boom', () => {
      throw new FhirgateError('ERR_TIMEOUT', 'the upstream took too long');
    });
  });
  assert.equal((await call(base, '/patients/7')).status, 200);
  assert.ok((await call(base, '/boom')).status >= 500);
  assert.deepEqual(calls, ['end', 'end']);
});
