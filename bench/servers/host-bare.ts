/** Bare node:http doing what the transform endpoint does: match the path, answer the cached resource. */
import { createServer } from 'node:http';
import { announce, cachedPatient } from './transform-resource.js';

const server = createServer((req, res) => {
  const match = /^\/fhir\/transform\/Patient\/([A-Za-z0-9\-.]{1,64})(?:\?.*)?$/.exec(req.url ?? '');
  if (req.method !== 'GET' || !match) {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.stringify({ ...cachedPatient, id: match[1] });
  res.writeHead(200, { 'content-type': 'application/fhir+json', 'content-length': Buffer.byteLength(body) }).end(body);
});
server.listen(0, '127.0.0.1', () => announce(server));
