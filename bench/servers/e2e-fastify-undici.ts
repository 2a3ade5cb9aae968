/**
 * End to end: Fastify 5 with an undici Pool reading the Patient from the fixed-response upstream (port in
 * argv[2]) and adding an extension, with the same per-request features as fhirgate's host.
 */
import Fastify from 'fastify';
import { Pool } from 'undici';
import { addFastifyFeatures, fastifyOptions } from './features.js';
import { announce, SUMMARY_EXTENSION } from './transform-resource.js';

const pool = new Pool(`http://127.0.0.1:${process.argv[2]}`, { connections: 64 });
const app = Fastify(fastifyOptions('e2e-fastify'));
addFastifyFeatures(app);
app.get<{ Params: { id: string } }>('/fhir/transform/Patient/:id', async (req, reply) => {
  const upstream = await pool.request({ path: `/fhir/R4/Patient/${encodeURIComponent(req.params.id)}`, method: 'GET', headers: { accept: 'application/fhir+json' } });
  if (upstream.statusCode !== 200) {
    await upstream.body.dump();
    return reply.code(502).send({ error: `upstream answered ${upstream.statusCode}` });
  }
  const patient = (await upstream.body.json()) as { extension?: unknown[] };
  reply.type('application/fhir+json');
  return JSON.stringify({ ...patient, extension: [...(patient.extension ?? []), SUMMARY_EXTENSION] });
});
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
