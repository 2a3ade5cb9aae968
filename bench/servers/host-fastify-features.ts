/**
 * Fastify 5 doing what the transform endpoint does, with the same per-request features as fhirgate's host:
 * the W3C trace context (see `addFastifyTraceContext`) and the features of `addFastifyFeatures`.
 * `BENCH_FASTIFY_TRACE=0` leaves the trace context out (the anchor before issue 37's trace, kept as a row).
 */
import Fastify from 'fastify';
import { addFastifyFeatures, addFastifyTraceContext, fastifyOptions } from './features.js';
import { announce, cachedPatient } from './transform-resource.js';

const app = Fastify(fastifyOptions('host-fastify'));
if (process.env.BENCH_FASTIFY_TRACE !== '0') addFastifyTraceContext(app);
addFastifyFeatures(app);
app.get<{ Params: { id: string } }>('/fhir/transform/Patient/:id', async (req, reply) => {
  reply.type('application/fhir+json');
  return JSON.stringify({ ...cachedPatient, id: req.params.id });
});
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
