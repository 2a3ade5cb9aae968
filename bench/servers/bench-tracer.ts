/**
 * The tracer of the "tracing on" rows: the OpenTelemetry SDK (a `BasicTracerProvider`, every span sampled,
 * batched to an exporter that drops them), so that the rows measure fhirgate's spans and the SDK's own
 * cost, not an exporter's. Only with `BENCH_TRACING=1`; otherwise `undefined` (tracing off).
 */
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

const dropAll: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: () => Promise.resolve(),
};

/** The SDK's tracer with `BENCH_TRACING=1`, else `undefined`. */
export function benchTracer() {
  if (process.env.BENCH_TRACING !== '1') return undefined;
  return new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropAll)] }).getTracer('fhirgate');
}
