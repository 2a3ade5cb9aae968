// How `fhirgate serve` finds the user's OpenTelemetry tracer: `@opentelemetry/api` resolved from the
// working directory, used only once an SDK is registered with it; anything else is no tracing, no error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { userTracer } from '../../src/cli/otel-tracer.js';
import { ROOT, tempDir } from '../support/run-cli.js';

test('no @opentelemetry/api in the project, or no SDK registered: no tracer; an SDK registered: its tracer', async (t) => {
  assert.equal(await userTracer(tempDir(t)), undefined, 'nothing to resolve from an empty folder');
  assert.equal(await userTracer(ROOT), undefined, 'the API alone records nothing');
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  t.after(() => trace.disable());
  const tracer = await userTracer(ROOT);
  assert.ok(tracer !== undefined);
  tracer.startSpan('probe').end();
  assert.deepEqual(exporter.getFinishedSpans().map((s) => [s.name, s.instrumentationScope.name]), [['probe', 'fhirgate']]);
});
