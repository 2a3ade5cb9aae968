/**
 * An aggregate handler: one patient's Conditions from two FHIR servers ("hospitals") in one searchset
 * Bundle, each resource tagged with the source it came from. When a source fails, the answer still
 * comes, with an OperationOutcome entry that says which source failed and why.
 *
 * Always runs against two embedded sandboxes (it makes one of them fail on purpose).
 * Run it: `node --import tsx examples/aggregate.ts`
 * @module
 */
import type { AddressInfo } from 'node:net';
import { aggregateSources, AsyncFHIRGateway, createJSONLogger, createServiceAPI, SOURCE_TAG_SYSTEM } from '../src/index.js';
import type { Bundle, OperationOutcome } from '../src/index.js';
import { startSandbox } from '../src/sandbox/index.js';

// Two hospitals: ehr-a with the built-in demo data, ehr-b starting empty.
await using hospitalA = await startSandbox({ seed: 'a' });
await using hospitalB = await startSandbox({ seed: false });

await using gw = new AsyncFHIRGateway();
gw.addSource('ehr-a', hospitalA.connectionString());
gw.addSource('ehr-b', hospitalB.connectionString());

// The patient a-patient-1 has two conditions at ehr-a; ehr-b records one more for the same patient.
const patientId = 'a-patient-1';
await gw.create({
  resourceType: 'Condition',
  subject: { reference: `Patient/${patientId}` },
  code: { coding: [{ system: 'http://snomed.info/sct', code: '73211009', display: 'Diabetes mellitus' }], text: 'Diabetes mellitus' },
}, 'ehr-b');

// The handler answers GET /fhir/aggregate/Condition?patient_id=…&sources=…; `sources` is undefined
// when the caller named none. aggregateSources searches every source in parallel (each within its
// time-out), tags each resource, and reports failed sources instead of failing the whole answer.
gw.aggregate('Condition', (id, sources) =>
  aggregateSources(gw, { resourceType: 'Condition', params: { patient: id }, sources: sources ?? gw.sourceNames, timeoutSeconds: 10 }));

await using app = createServiceAPI({ title: 'Aggregate example', logger: createJSONLogger({ level: 'warn' }) });
app.registerGateway(gw, { path: '/fhir' });
const server = await app.listen(0);
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/fhir/aggregate/Condition?patient_id=${patientId}&sources=ehr-a&sources=ehr-b`;

console.log(`GET ${url}`);
report('both sources up', await getBundle(url));

// Make ehr-b answer 503 Service Unavailable three times: the gateway retries a 503 twice (with
// backoff) before it gives up, so the third failure reaches the aggregate handler.
hospitalB.faults.failNext(3, 503);
report('ehr-b failing', await getBundle(url));

async function getBundle(address: string): Promise<Bundle> {
  const res = await fetch(address);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return (await res.json()) as Bundle;
}

/** Prints each entry: the source tag of a match, the diagnostics of an outcome. */
function report(title: string, bundle: Bundle): void {
  console.log(`${title}: total ${bundle.total}`);
  for (const entry of bundle.entry ?? []) {
    const resource = entry.resource;
    if (entry.search?.mode === 'outcome') {
      console.log(`  failed source: ${(resource as OperationOutcome).issue[0]?.diagnostics}`);
    } else {
      const source = resource?.meta?.tag?.find((t) => t.system === SOURCE_TAG_SYSTEM)?.code;
      console.log(`  ${source}: ${resource?.resourceType}/${resource?.id}`);
    }
  }
}
