/**
 * The upstream of the `$everything` rows: two sources at `/fhir/R4` (ehr) and `/lab/R4` (lab), each
 * holding one patient with the same MRN (`e-1` and `l-1`) and answering, keep-alive and from bytes made
 * once: its CapabilityStatement (listing `$everything` on Patient), a read of its Patient, a search by
 * identifier (that one Patient), and `Patient/<id>/$everything` (a searchset of the Patient and
 * {@link EVERYTHING_ENTRIES} - 1 Observations). Prints `listening <port>`.
 */
import { createServer } from 'node:http';
import { EVERYTHING_BASES, EVERYTHING_ENTRIES, EVERYTHING_MRN } from './everything-fixture.js';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const statement = json({
  resourceType: 'CapabilityStatement', status: 'active', kind: 'instance', fhirVersion: '4.0.1', format: ['json'],
  rest: [{ mode: 'server', resource: [{ type: 'Patient', interaction: [{ code: 'read' }, { code: 'search-type' }], operation: [{ name: 'everything', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-everything' }] }] }],
});
/** Path → the answer's bytes, made once the port is known. */
const answers = new Map<string, Buffer>();

function fill(origin: string): void {
  for (const [base, id] of Object.values(EVERYTHING_BASES)) {
    const patient = { resourceType: 'Patient', id, meta: { versionId: '1', lastUpdated: '2026-01-01T00:00:00Z' }, identifier: [{ system: EVERYTHING_MRN, value: '1' }], name: [{ family: 'Everything', given: ['Eve'] }], birthDate: '1970-01-01' };
    const observations = Array.from({ length: EVERYTHING_ENTRIES - 1 }, (_, i) => ({
      resourceType: 'Observation', id: `${id}-obs-${i}`, meta: { versionId: '1', lastUpdated: '2026-01-01T00:00:00Z' }, status: 'final',
      code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }] }, subject: { reference: `Patient/${id}` },
      effectiveDateTime: '2026-01-01T00:00:00Z', valueQuantity: { value: 60 + i, unit: '/min', system: 'http://unitsofmeasure.org', code: '/min' },
    }));
    const entry = (r: { resourceType: string; id: string }) => ({ fullUrl: `${origin}${base}/${r.resourceType}/${r.id}`, resource: r, search: { mode: 'match' } });
    answers.set(`${base}/metadata`, statement);
    answers.set(`${base}/Patient/${id}`, json(patient));
    answers.set(`${base}/Patient?identifier=${encodeURIComponent(`${EVERYTHING_MRN}|1`)}`, json({ resourceType: 'Bundle', type: 'searchset', total: 1, entry: [entry(patient)] }));
    answers.set(`${base}/Patient/${id}/%24everything`, json({ resourceType: 'Bundle', type: 'searchset', entry: [patient, ...observations].map(entry) }));
  }
}

const server = createServer((req, res) => {
  const url = req.url ?? '';
  // The resolution's search may carry `_count`: the answer is the same; `$` may come encoded or not.
  const asked = url.replace('/$everything', '/%24everything');
  const body = answers.get(asked) ?? answers.get(asked.replace(/&_count=\d+$/, ''));
  if (req.method === 'GET' && body !== undefined) res.writeHead(200, { 'content-type': 'application/fhir+json', 'content-length': String(body.length) }).end(body);
  else res.writeHead(404, { 'content-type': 'application/fhir+json' }).end('{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"not-found"}]}');
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') {
    fill(`http://127.0.0.1:${address.port}`);
    console.log(`listening ${address.port}`);
  }
});
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
