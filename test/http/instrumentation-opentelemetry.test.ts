// OpenTelemetry's own node:http instrumentation beside fhirgate's tracer: with the setting
// docs/observability.md gives (ignoreOutgoingRequestHook on fhirgate's mark), each upstream call is one
// client span, fhirgate's, in fhirgate's tree, while other code's requests keep the instrumentation's
// spans; without it, fhirgate sees the instrumentation's traceparent and starts no span of its own: still
// one client span per call.
import assert from 'node:assert/strict';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import { propagation, SpanKind } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { readTraceparent } from '../../src/lib/trace-context.js';
import { startServer } from '../support/test-server.js';

// As the SDK's NodeSDK sets it up: W3C Trace Context as the propagator.
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
// The documented setting: leave fhirgate's requests to fhirgate's own client spans.
const instrumentation = new HttpInstrumentation({ ignoreOutgoingRequestHook: (options) => Symbol.for('fhirgate.request') in options });
instrumentation.setTracerProvider(provider);
instrumentation.enable();
// What the instrumentation's loader hook does for an application: node:http required (and patched) before
// the ESM bindings that fhirgate's transport imports are synced.
const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
syncBuiltinESMExports();

test("with the documented hook: one client span per call, fhirgate's, and its id is the traceparent the upstream got", async (t) => {
  exporter.reset();
  const upstream = await startServer(t, (_req, res) => res.end(JSON.stringify({ resourceType: 'Patient', id: '1' })));
  await new Promise<void>((resolve) => http.get(`${upstream.url}/other`, (res) => res.resume().on('end', resolve)));
  assert.equal(exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT && s.instrumentationScope.name === '@opentelemetry/instrumentation-http').length, 1, 'the instrumentation is active for other requests');
  exporter.reset();
  const gateway = new AsyncFHIRGateway({ tracer: provider.getTracer('fhirgate') });
  t.after(() => gateway.close());
  gateway.addSource('s', `fhir://${upstream.url.slice(7)}/fhir`);
  await gateway.read('Patient', '1');
  await gateway.read('Patient', '1');
  const clients = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
  assert.equal(clients.length, 2, 'one client span per call');
  assert.ok(clients.every((s) => s.instrumentationScope.name === 'fhirgate'));
  const sent = upstream.seen.filter((s) => s.url !== '/other').map((s) => readTraceparent(s.headers.traceparent)?.spanId);
  assert.deepEqual(sent, clients.map((s) => s.spanContext().spanId));
});

test("without the hook: fhirgate detects the instrumentation's traceparent and starts no client span of its own", async (t) => {
  exporter.reset();
  instrumentation.setConfig({});
  t.after(() => instrumentation.setConfig({ ignoreOutgoingRequestHook: (options) => Symbol.for('fhirgate.request') in options }));
  const upstream = await startServer(t, (_req, res) => res.end(JSON.stringify({ resourceType: 'Patient', id: '1' })));
  const gateway = new AsyncFHIRGateway({ tracer: provider.getTracer('fhirgate') });
  t.after(() => gateway.close());
  gateway.addSource('s', `fhir://${upstream.url.slice(7)}/fhir`);
  await gateway.read('Patient', '1');
  const clients = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
  assert.equal(clients.length, 1, 'one client span per call');
  assert.equal(clients[0]!.instrumentationScope.name, '@opentelemetry/instrumentation-http');
  assert.equal(readTraceparent(upstream.seen[0]?.headers.traceparent)?.spanId, clients[0]!.spanContext().spanId);
});
