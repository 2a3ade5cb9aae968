/**
 * A minimal FHIR server answering every `GET /fhir/R4/Patient/<id>` with the same Patient, keep-alive, so
 * that a benchmark measures the client's overhead and not the server's; and, for the federated rows, a
 * search of Patients at either of two bases, `/fhir/R4` and `/lab/R4` (two sources), with the same
 * searchset Bundle (see `searchBundle`), its URLs under the base asked. Prints `listening <port>`.
 */
import { createServer } from 'node:http';
import { FIXED_PATIENT, FIXED_PATIENT_HEADERS, SEARCH_BASES, searchBundle } from './fixed-patient.js';

const body = Buffer.from(FIXED_PATIENT);
const headers = FIXED_PATIENT_HEADERS;
/** Base path → the Bundle's bytes, made once the port is known. */
const searches = new Map<string, Buffer>();

const server = createServer((req, res) => {
  const url = req.url ?? '';
  if (req.method === 'GET' && url.startsWith('/fhir/R4/Patient/')) {
    res.writeHead(200, headers).end(body);
    return;
  }
  const query = url.indexOf('/Patient?');
  const bundle = req.method === 'GET' && query > 0 ? searches.get(url.slice(0, query)) : undefined;
  if (bundle !== undefined) res.writeHead(200, { 'content-type': 'application/fhir+json', 'content-length': String(bundle.length) }).end(bundle);
  else res.writeHead(404, { 'content-type': 'application/fhir+json' }).end('{"resourceType":"OperationOutcome","issue":[]}');
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') {
    for (const base of Object.values(SEARCH_BASES)) searches.set(base, Buffer.from(searchBundle(`http://127.0.0.1:${address.port}${base}`)));
    console.log(`listening ${address.port}`);
  }
});
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
