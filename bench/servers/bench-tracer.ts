/**
 * The tracer of the "tracing on" rows: the OpenTelemetry SDK as a user deploys it, its exporter a no-op, so
 * that the rows measure fhirgate's spans and the SDK's own cost, not an exporter's. Only with
 * `BENCH_TRACING=1`; otherwise `undefined` (tracing off). The SDK's defaults, none changed:
 * - `BatchSpanProcessor` (2,048 queued, exported by 512 or every 5 s), the processor meant for production
 *   (`SimpleSpanProcessor` exports each span as it ends, for debugging); its exporter takes each batch and
 *   drops it;
 * - the sampler `ParentBased(AlwaysOn)`: every span sampled and recorded (no request escapes the cost);
 * - `RandomIdGenerator`;
 * - no context manager: fhirgate hands each span its parent (src/lib/tracer.ts) and never asks the API for the
 *   active context, so a registered one (`NodeSDK`'s AsyncLocalStorage manager) would not be consulted.
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
