/**
 * The floor of a federated search on the anchor's stack: Fastify 5 answering `GET /fhir/all/:type?…` by asking both
 * sources of the fixed-response upstream (port in argv[2]) the same query with `Promise.all` over undici Pools (as
 * facade-fastify.ts makes and asks them), parsing both answers and sending their entries as one searchset Bundle
 * (fan-out.ts); no key, no rewrite, no audit. The anchor's federated search minus this is what the anchor's
 * features cost (issue 38).
 * With `BENCH_FLOOR_WORK_US` it works that long per request first (floor-work.ts).
 */
import Fastify from 'fastify';
import { searchset, sourcePaths } from './fan-out.js';
import { FLOOR_WORKS, floorWork } from './floor-work.js';
import { announce } from './transform-resource.js';
import { sourcePools } from './undici-pools.js';

const pools = [...sourcePools(`http://127.0.0.1:${process.argv[2]}`).values()];

/** The body of `GET path` at the upstream through `pool`, or a rejection unless it answers 200. */
async function get(pool: (typeof pools)[number], path: string): Promise<string> {
  const res = await pool.request({ method: 'GET', path, headers: { accept: 'application/fhir+json' } });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`upstream answered ${res.statusCode}`);
  return text;
}

const app = Fastify({ logger: false, keepAliveTimeout: 5_000 }); // node:http's default, as facade-fastify.ts
if (FLOOR_WORKS) app.addHook('onRequest', async () => floorWork());
app.get('/fhir/all/:type', async (req, reply) => {
  const paths = sourcePaths(req.url);
  const answers = await Promise.all(paths.map((path, i) => get(pools[i]!, path))).catch(() => undefined);
  if (answers === undefined) return reply.code(502).send();
  return reply.type('application/fhir+json').send(searchset(answers));
});
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
