/**
 * The ceiling of doing nothing on fhirgate's own transport: a `node:http` server forwarding `/fhir/ehr/*`
 * to the fixed-response upstream's `/fhir/R4/*` (port in argv[2]) through one keep-alive `http.Agent`
 * (64 sockets, as the facade's gateway in facade-fhirgate.ts), the answer's status, `Content-Type` and
 * body passed back as they came; no policy, no audit, no rewriting. Beside plain reply-from (undici) it
 * shows what the HTTP client alone costs on each Node; with `BENCH_FLOOR_WORK_US`, in a process that works
 * as hard per request (floor-work.ts).
 */
import { Agent, createServer, request } from 'node:http';
import { floorWork } from './floor-work.js';
import { announce } from './transform-resource.js';

const port = Number(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const server = createServer((req, res) => {
  floorWork();
  const path = `/fhir/R4/${(req.url ?? '').slice('/fhir/ehr/'.length)}`;
  const upstream = request({ host: '127.0.0.1', port, path, agent, headers: { accept: 'application/fhir+json' } }, (answer) => {
    const chunks: Buffer[] = [];
    answer.on('data', (c: Buffer) => chunks.push(c));
    answer.on('end', () => {
      res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/fhir+json' });
      res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
  });
  upstream.on('error', () => res.writeHead(502).end());
  upstream.end();
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => announce(server));
