/**
 * A transform handler: `GET /fhir/transform/Patient/<id>` reads the patient through the gateway, adds
 * an extension with a computed summary, and answers the enriched resource. The app is served on a
 * free port and called once with `fetch`, as any HTTP client would.
 *
 * Run it: `node --import tsx examples/transform.ts`
 * @module
 */
import type { AddressInfo } from 'node:net';
import { AsyncFHIRGateway, createJSONLogger, createServiceAPI } from '../src/index.js';
import type { Patient } from '../src/index.js';
import { openFhirSource } from './support/fhir-source.js';

await using fhir = await openFhirSource();
await using gw = new AsyncFHIRGateway();
gw.addSource('ehr', fhir.connectionString);

// The handler gets the id from the path and the `?source=` query parameter (undefined when absent:
// the gateway then uses its first source). It may read, search or update through the gateway.
gw.transform('Patient', async (id, source) => {
  const patient = await gw.read('Patient', id, source);
  const name = patient.name?.[0];
  const fullName = [...(name?.given ?? []), name?.family ?? ''].join(' ').trim();
  const summary = `${fullName}, ${patient.gender ?? 'gender unknown'}, born ${patient.birthDate ?? 'on an unknown date'}`;
  return {
    ...patient,
    extension: [...(patient.extension ?? []), { url: 'https://example.org/fhir/StructureDefinition/summary', valueString: summary }],
  };
});

// The app mounts the gateway under /fhir; its transform handlers become HTTP endpoints there.
// Log only warnings so the example's own lines stay readable.
await using app = createServiceAPI({ title: 'Transform example', logger: createJSONLogger({ level: 'warn' }) });
app.registerGateway(gw, { path: '/fhir' });
const server = await app.listen(0);
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// Any patient will do: take the first one the source knows.
const first = (await gw.search('Patient', { _count: 1 }, 'ehr')).entry?.[0]?.resource;
if (first?.id === undefined) throw new Error('the source has no patients to transform');

const url = `${base}/fhir/transform/Patient/${first.id}?source=ehr`;
const res = await fetch(url);
const enriched = (await res.json()) as Patient;
console.log(`GET ${url}`);
console.log(`-> ${res.status} ${res.headers.get('content-type')}`);
console.log(`summary extension: ${enriched.extension?.find((e) => e.url.endsWith('/summary'))?.valueString}`);
