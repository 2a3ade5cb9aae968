/**
 * A CDS Hooks 2.0 service: when a clinician opens a patient's chart (`patient-view`), the EHR calls
 * the service, which answers cards to show. Here the service counts the patient's problems through the
 * gateway and answers one card. The example then acts as the EHR: discovery, then one call.
 *
 * Run it: `node --import tsx examples/cds-hooks.ts`
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { CDSHooksService } from '../src/cds/index.js';
import type { CDSResponse } from '../src/cds/index.js';
import { AsyncFHIRGateway, createJSONLogger, createServiceAPI } from '../src/index.js';
import type { Condition, Patient } from '../src/index.js';
import { openFhirSource } from './support/fhir-source.js';

await using fhir = await openFhirSource();
await using gw = new AsyncFHIRGateway();
gw.addSource('ehr', fhir.connectionString);

const cds = new CDSHooksService();

// The definition is what discovery shows. `prefetch` asks the EHR to send the patient along with the
// call ({{context.patientId}} is filled in by the EHR), which saves the service a round trip.
cds.hook('patient-view', {
  id: 'problem-count',
  title: 'Problem count',
  description: 'Shows how many problems are on the patient\'s problem list',
  prefetch: { patient: 'Patient/{{context.patientId}}' },
}, async (request, context): Promise<CDSResponse> => {
  const patientId = request.context.patientId as string;
  const patient = request.prefetch.patient as Patient | null; // null: the EHR says it does not exist
  const conditions = await gw.search('Condition', { patient: patientId }, 'ehr', { signal: context.signal });
  const problems = (conditions.entry ?? []).map((e) => (e.resource as Condition).code?.text ?? 'uncoded problem');
  const name = patient?.name?.[0]?.family ?? patientId;
  return {
    cards: [{
      summary: `${name}: ${problems.length} problem(s) on the list`,
      detail: problems.map((p) => `- ${p}`).join('\n'), // markdown
      indicator: problems.length > 1 ? 'warning' : 'info',
      source: { label: 'fhirgate example' },
    }],
  };
});

await using app = createServiceAPI({ title: 'CDS Hooks example', logger: createJSONLogger({ level: 'warn' }) });
app.registerService(cds, { path: '/cds' });
const server = await app.listen(0);
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cds`;

// 1. Discovery: what services are there, for which hook, with which prefetch.
const discovery = (await (await fetch(`${base}/cds-services`)).json()) as { services: { id: string; hook: string }[] };
console.log(`discovery: ${discovery.services.map((s) => `${s.id} (${s.hook})`).join(', ')}`);

// 2. A call, as the EHR makes it when the chart of a patient opens.
const patient = (await gw.search('Patient', { _count: 1 }, 'ehr')).entry?.[0]?.resource;
if (patient?.id === undefined) throw new Error('the source has no patients');
const res = await fetch(`${base}/cds-services/problem-count`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    hook: 'patient-view',
    hookInstance: randomUUID(),
    context: { userId: 'Practitioner/example', patientId: patient.id },
    prefetch: { patient },
  }),
});
const answer = (await res.json()) as CDSResponse;
console.log(`POST ${base}/cds-services/problem-count -> ${res.status}`);
for (const card of answer.cards) {
  console.log(`card [${card.indicator}] ${card.summary}`);
  console.log(card.detail?.replace(/^/gm, '  '));
}
