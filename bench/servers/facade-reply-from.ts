/**
 * What a Node user would otherwise put in front of a FHIR server: Fastify 5 with `@fastify/reply-from`
 * forwarding `/fhir/ehr/*` to the fixed-response upstream's `/fhir/R4/*` (port in argv[2]); no policy, no
 * audit, no rewriting; with `BENCH_FLOOR_WORK_US`, an `onRequest` hook that works as hard per request
 * (floor-work.ts).
 */
import replyFrom from '@fastify/reply-from';
import Fastify from 'fastify';
import { FLOOR_WORKS, floorWork } from './floor-work.js';
import { announce } from './transform-resource.js';

const app = Fastify({ logger: false });
if (FLOOR_WORKS) app.addHook('onRequest', async () => floorWork());
await app.register(replyFrom, { base: `http://127.0.0.1:${process.argv[2]}`, undici: { connections: 64 } });
app.get('/fhir/ehr/*', (req, reply) => reply.from(`/fhir/R4/${(req.params as { '*': string })['*']}`));
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
