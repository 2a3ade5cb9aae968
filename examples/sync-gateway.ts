/**
 * The synchronous gateway in a script: `FHIRGateway` has the same operations, connection strings and
 * errors as `AsyncFHIRGateway`, but its calls return values, not Promises. It suits scripts, notebooks
 * and command-line tools; servers should use `AsyncFHIRGateway`, because a sync call blocks its thread.
 *
 * Run it: `node --import tsx examples/sync-gateway.ts`
 * (set FHIR_CONNECTION_STRING to use your own server instead of the embedded sandbox).
 * @module
 */
import { FHIRGateway, isFhirgateError } from '../src/index.js';
import type { Patient } from '../src/index.js';
import { openFhirSource } from './support/fhir-source.js';

// A sync call blocks this thread until the answer comes, so the FHIR server must not run on it: the
// sandbox is started in a child process. (On this thread the gateway would refuse with ERR_DEADLOCK.)
await using fhir = await openFhirSource({ childProcess: true });

// `using` closes the gateway (it ends its worker thread) when the script's scope ends.
using gw = new FHIRGateway();
gw.addSource('ehr', fhir.connectionString);
console.log(`source "ehr": ${fhir.label}`);

// From here on, no await: every call returns its value.
const bundle = gw.search('Patient', { _count: 3 }, 'ehr');
for (const entry of bundle.entry ?? []) {
  const patient = gw.read('Patient', entry.resource?.id as string, 'ehr');
  const name = patient.name?.[0];
  console.log(`Patient/${patient.id}: ${name?.given?.join(' ')} ${name?.family}, born ${patient.birthDate}`);
}

const draft: Patient = { resourceType: 'Patient', active: false, name: [{ family: 'Script', given: ['Sam'] }] };
const created = gw.create(draft, 'ehr');
const updated = gw.update({ ...created, active: true }, 'ehr');
console.log(`created Patient/${created.id}, updated to active=${updated.active}, deleted: ${gw.delete('Patient', created.id as string, 'ehr')}`);

// Errors are thrown, with the same codes as the async gateway.
try {
  gw.read('Patient', 'no-such-patient', 'ehr');
} catch (err) {
  if (!isFhirgateError(err, 'ERR_FHIR_HTTP')) throw err;
  console.log(`read Patient/no-such-patient: ${err.code} ${err.status}`);
}
