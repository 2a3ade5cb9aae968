/** Fastify 5 doing what the transform endpoint does, with the same per-request features as fhirgate's host. */
import Fastify from 'fastify';
import { addFastifyFeatures, fastifyOptions } from './features.js';
import { announce, cachedPatient } from './transform-resource.js';

const app = Fastify(fastifyOptions('host-fastify'));
addFastifyFeatures(app);
app.get<{ Params: { id: string } }>('/fhir/transform/Patient/:id', async (req, reply) => {
  reply.type('application/fhir+json');
  return JSON.stringify({ ...cachedPatient, id: req.params.id });
});
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
