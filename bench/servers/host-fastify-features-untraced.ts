/** host-fastify-features.ts without the W3C trace context: the feature-equal anchor as it was before issue 37's trace. */
process.env.BENCH_FASTIFY_TRACE = '0';
await import('./host-fastify-features.js');
