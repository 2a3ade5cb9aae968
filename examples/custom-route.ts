/**
 * A custom route with an injected gateway: `GET /patients/:id/summary` gets the registered
 * `AsyncFHIRGateway` in `ctx.deps.fhir` (resolved per request by the host, checked at `listen()`), reads
 * the patient and their conditions, and answers a small JSON summary.
 *
 * Run it: `node --import tsx examples/custom-route.ts`
 * @module
 */
import type { AddressInfo } from 'node:net';
import { AsyncFHIRGateway, createJSONLogger, createServiceAPI, getGateway } from '../src/index.js';
import type { Condition } from '../src/index.js';
import { openFhirSource } from './support/fhir-source.js';

await using fhir = await openFhirSource();
await using gw = new AsyncFHIRGateway();
gw.addSource('ehr', fhir.connectionString);

await using app = createServiceAPI({ title: 'Custom route example', logger: createJSONLogger({ level: 'warn' }) });
app.registerGateway(gw); // registered under its class name, 'AsyncFHIRGateway'

// `inject` maps names to dependency tokens. getGateway('AsyncFHIRGateway') finds the gateway by the
// name it was registered under; the type argument types ctx.deps.fhir (passing the class,
// getGateway(AsyncFHIRGateway), does both at once). The summary and query show up in /docs.
app.get('/patients/:id/summary', {
  inject: { fhir: getGateway<AsyncFHIRGateway>('AsyncFHIRGateway') },
  summary: 'A patient with their active problems',
  query: { source: { description: 'The source to read from (default: the first one)' } },
}, async (ctx) => {
  const source = typeof ctx.query.source === 'string' ? ctx.query.source : undefined;
  // Pass the request's signal: if the caller goes away, the FHIR calls are aborted too.
  const patient = await ctx.deps.fhir.read('Patient', ctx.params.id as string, source, { signal: ctx.signal });
  const conditions = await ctx.deps.fhir.search('Condition', { patient: patient.id as string }, source, { signal: ctx.signal });
  const name = patient.name?.[0];
  // A returned value is sent as JSON with status 200 (use reply() for another status or headers).
  return {
    id: patient.id,
    name: [...(name?.given ?? []), name?.family ?? ''].join(' ').trim(),
    birthDate: patient.birthDate,
    problems: (conditions.entry ?? []).map((e) => (e.resource as Condition).code?.text ?? 'uncoded'),
  };
});

const server = await app.listen(0);
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const first = (await gw.search('Patient', { _count: 1 })).entry?.[0]?.resource;
if (first?.id === undefined) throw new Error('the source has no patients');

// The second call asks for a patient that does not exist: an error thrown in a handler (here the
// server's 404, ERR_FHIR_HTTP) is answered with its status and code, never with a stack trace.
for (const id of [first.id, 'no-such-patient']) {
  const res = await fetch(`${base}/patients/${id}/summary`);
  console.log(`GET /patients/${id}/summary -> ${res.status} ${await res.text()}`);
}
