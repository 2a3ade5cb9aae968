/**
 * The floor of a federated search on fhirgate's own transport: a `node:http` server answering
 * `GET /fhir/all/Patient?…` by asking both sources of the fixed-response upstream (port in argv[2]) the same query
 * in parallel through one keep-alive `http.Agent` (64 sockets, as the facade's gateway in facade-fhirgate.ts),
 * parsing both answers and sending their entries as one searchset Bundle (fan-out.ts); no key, no rewrite, no audit.
 * fhirgate's federated search minus this is what fhirgate's features cost (issue 38).
 * With `BENCH_FLOOR_WORK_US` it works that long per request first (floor-work.ts).
 */
import { Agent, createServer, request } from 'node:http';
import { searchset, sourcePaths } from './fan-out.js';
import { floorWork } from './floor-work.js';
import { announce } from './transform-resource.js';

const port = Number(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** The body of `GET path` at the upstream, or a rejection unless it answers 200. */
function get(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const upstream = request({ host: '127.0.0.1', port, path, agent, headers: { accept: 'application/fhir+json' } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => (answer.statusCode === 200 ? resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString()) : reject(new Error(`upstream answered ${answer.statusCode}`))));
    });
    upstream.on('error', reject);
    upstream.end();
  });
}

const server = createServer((req, res) => {
  floorWork();
  Promise.all(sourcePaths(req.url ?? '').map(get)).then(
    (answers) => res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(searchset(answers)),
    () => res.writeHead(502).end(),
  );
});
server.listen(0, '127.0.0.1', () => announce(server));
