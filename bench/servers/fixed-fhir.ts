/**
 * A minimal FHIR server answering every `GET /fhir/R4/Patient/<id>` with the same Patient, keep-alive, so
 * that a benchmark measures the client's overhead and not the server's. Prints `listening <port>`.
 */
import { createServer } from 'node:http';
import { FIXED_PATIENT, FIXED_PATIENT_HEADERS } from './fixed-patient.js';

const body = Buffer.from(FIXED_PATIENT);
const headers = FIXED_PATIENT_HEADERS;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.startsWith('/fhir/R4/Patient/')) {
    res.writeHead(200, headers).end(body);
  } else {
    res.writeHead(404, { 'content-type': 'application/fhir+json' }).end('{"resourceType":"OperationOutcome","issue":[]}');
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
