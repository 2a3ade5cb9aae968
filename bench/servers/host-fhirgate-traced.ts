/** host-fhirgate.ts with the OpenTelemetry SDK as its tracer (a no-op exporter): the host's "tracing on" row. */
process.env.BENCH_TRACING = '1';
await import('./host-fhirgate.js');
