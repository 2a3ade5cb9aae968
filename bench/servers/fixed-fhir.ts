/**
 * A minimal FHIR server answering every `GET /fhir/R4/Patient/<id>` with the same Patient, keep-alive, so
 * that a benchmark measures the client's overhead and not the server's. Prints `listening <port>`.
 */
import { createServer } from 'node:http';

const patient = JSON.stringify({
  resourceType: 'Patient',
  id: 'bench-1',
  meta: { versionId: '1', lastUpdated: '2026-01-01T00:00:00Z' },
  active: true,
  name: [{ use: 'official', family: 'Benchmark', given: ['Bea', 'Q'] }],
  gender: 'female',
  birthDate: '1980-04-12',
  address: [{ line: ['1 Test Street'], city: 'Leeds', postalCode: 'LS1 1AA', country: 'GB' }],
  telecom: [{ system: 'phone', value: '+44 113 000 0000', use: 'home' }],
  identifier: [{ system: 'urn:oid:2.16.840.1.113883.2.1.4.1', value: '9000000009' }],
});
const body = Buffer.from(patient);
const headers = { 'content-type': 'application/fhir+json', 'content-length': String(body.length), etag: 'W/"1"' };

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
