/** facade-fhirgate.ts with the OpenTelemetry SDK as the host's and the gateway's tracer (a no-op exporter): the facade's "tracing on" row. */
process.env.BENCH_TRACING = '1';
await import('./facade-fhirgate.js');
