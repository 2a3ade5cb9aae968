/**
 * Events as an audit trail: every gateway operation emits an event (`fhir.patient.read`,
 * `fhir.condition.search`, ...) through the process-wide `localHandler` unless the gateway was given
 * another dispatcher. Here one handler, registered for the pattern `fhir.*`, writes one audit line per
 * event. Payloads are flat facts (type, id, source, operation), never a token or a resource body.
 *
 * Run it: `node --import tsx examples/events-audit-log.ts`
 * @module
 */
import { AsyncFHIRGateway, localHandler } from '../src/index.js';
import type { EventPair } from '../src/index.js';
import { openFhirSource } from './support/fhir-source.js';

/** One audit line: when, what, which resource, from which source (a real system appends to a log store). */
function audit([eventName, payload]: EventPair): void {
  const target = payload.resource_id === undefined ? payload.resource_type : `${payload.resource_type}/${payload.resource_id}`;
  const count = payload.result_count === undefined ? '' : ` results=${payload.result_count}`;
  console.log(`AUDIT ${new Date().toISOString()} ${eventName} ${target} source=${payload.source}${count}`);
}

// Patterns are exact names (`fhir.patient.read`) or end in `*`. register() returns a function that
// removes the handler again. Handlers may be async; what they throw is logged, never propagated to
// the gateway call that emitted the event.
const stopAuditing = localHandler.register('fhir.*', audit);

await using fhir = await openFhirSource();
await using gw = new AsyncFHIRGateway(); // no dispatcher given: emits through localHandler
gw.addSource('ehr', fhir.connectionString);

const bundle = await gw.search('Patient', { _count: 2 }, 'ehr');
for (const entry of bundle.entry ?? []) {
  const patient = await gw.read('Patient', entry.resource?.id as string, 'ehr');
  await gw.search('Condition', { patient: patient.id as string }, 'ehr');
}

// Events are delivered asynchronously: drain() waits for the handlers still running.
await localHandler.drain();
stopAuditing();
console.log('audit handler removed');
