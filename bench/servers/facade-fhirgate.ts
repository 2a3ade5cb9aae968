/**
 * The FHIR facade over the fixed-response upstream (port in argv[2]): sources `ehr` and `lab` (the two
 * search bases of fixed-fhir.ts), `/fhir/ehr/Patient/<id>` and the federated `/fhir/all/Patient?…` with a
 * caller keyed by argv[3], its policy checked and an AuditEvent built and delivered (a `fhir.audit`
 * handler) per access. On SIGUSR1 prints `audited <count> <bytes of the last AuditEvent's JSON> <bytes of all>`.
 */
import { AsyncFHIRGateway, createServiceAPI, LocalEventDispatcher } from '../../src/index.js';
import { FHIRFacade } from '../../src/facade/index.js';
import { benchTracer } from './bench-tracer.js';
import { SEARCH_BASES } from './fixed-patient.js';
import { announce } from './transform-resource.js';

const tracer = benchTracer();
const traced = tracer === undefined ? {} : { tracer };
const gw = new AsyncFHIRGateway({ maxConnections: 64, maxKeepaliveConnections: 64, keepaliveExpiry: 30, ...traced });
for (const [source, base] of Object.entries(SEARCH_BASES)) gw.addSource(source, `fhir://127.0.0.1:${process.argv[2]}${base}/`);
let audited = 0;
let lastBytes = 0;
let totalBytes = 0;
const dispatcher = new LocalEventDispatcher();
dispatcher.register('fhir.audit', ([, payload]) => {
  audited++;
  lastBytes = Buffer.byteLength(String((payload as { audit_event?: unknown }).audit_event));
  totalBytes += lastBytes;
});
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const app = createServiceAPI({ title: 'bench', dispatcher, logger: silent, ...traced });
app.registerGateway(gw, { path: '/fhir' });
app.registerService(new FHIRFacade(gw, { callers: [{ name: 'bench', apiKey: process.argv[3]!, sources: Object.keys(SEARCH_BASES), scopes: 'system/Patient.rs' }] }), { path: '/fhir' });
process.on('SIGUSR1', () => console.log(`audited ${audited} ${lastBytes} ${totalBytes}`));
announce(await app.listen(0, '127.0.0.1'));
