/** Fastify 5 route doing what the transform endpoint does. */
import Fastify from 'fastify';
import { announce, cachedPatient } from './transform-resource.js';

const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/fhir/transform/Patient/:id', async (req, reply) => {
  reply.type('application/fhir+json');
  return JSON.stringify({ ...cachedPatient, id: req.params.id });
});
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
