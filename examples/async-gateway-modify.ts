/**
 * The Promise-based gateway, start to finish: create a patient, read it back, search for it, change it
 * with `modify` (read, change, save with optimistic locking), and delete it.
 *
 * Run it: `node --import tsx examples/async-gateway-modify.ts`
 * (set FHIR_CONNECTION_STRING to use your own server instead of the embedded sandbox).
 * @module
 */
import { AsyncFHIRGateway, isFhirgateError } from '../src/index.js';
import type { Patient } from '../src/index.js';
import { openFhirSource } from './support/fhir-source.js';

// A FHIR server to talk to: the embedded sandbox unless FHIR_CONNECTION_STRING is set.
await using fhir = await openFhirSource();

// One gateway holds many named sources; they share one keep-alive connection pool.
// `await using` closes the gateway (and its sockets) when this module's top-level scope ends.
await using gw = new AsyncFHIRGateway();
gw.addSource('ehr', fhir.connectionString);
console.log(`source "ehr": ${fhir.label}`);

// create: the server gives the new resource its id.
const draft: Patient = {
  resourceType: 'Patient',
  active: false,
  name: [{ family: 'Example', given: ['Ada'] }],
  birthDate: '1990-04-01',
};
const created = await gw.create(draft, 'ehr');
const id = created.id as string;
console.log(`created Patient/${id}`);

// read: the answer is typed as a Patient.
const read = await gw.read('Patient', id, 'ehr');
console.log(`read Patient/${id}: ${read.name?.[0]?.given?.[0]} ${read.name?.[0]?.family}, active=${read.active}`);

// search: the first page of a searchset Bundle. Values may be strings, numbers or booleans.
const bundle = await gw.search('Patient', { family: 'Example', _count: 10 }, 'ehr');
const found = (bundle.entry ?? []).some((entry) => entry.resource?.id === id);
console.log(`search family=Example: ${bundle.entry?.length ?? 0} match(es), ours among them: ${found}`);

// modify: reads the patient, runs the callback, and saves only if something changed. The save sends
// If-Match with the version that was read, so a concurrent change is never overwritten silently
// (the callback is retried on a fresh copy; after 3 lost races it rejects with ERR_CONFLICT).
const modified = await gw.modify('Patient', id, 'ehr', (patient) => {
  patient.active = true;
  patient.telecom = [{ system: 'email', value: 'ada@example.org' }];
});
console.log(`modified Patient/${id}: active=${modified.active}, version ${modified.meta?.versionId ?? '(not given)'}`);

// delete: true when the server deleted it, false when it was not there.
console.log(`deleted Patient/${id}: ${await gw.delete('Patient', id, 'ehr')}`);

// Failures reject with an error that has a stable `code`; a FHIR error status also carries `status`.
try {
  await gw.read('Patient', id, 'ehr');
} catch (err) {
  if (!isFhirgateError(err, 'ERR_FHIR_HTTP')) throw err;
  console.log(`read after delete: ${err.code} ${err.status} (gone, as expected)`);
}
