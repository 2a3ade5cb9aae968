/**
 * The FHIR facade over the fixed-response upstream (port in argv[2]): `/fhir/ehr/Patient/<id>` with a
 * caller keyed by argv[3], its policy checked and an AuditEvent built and delivered (a `fhir.audit` handler) per read.
 */
import { AsyncFHIRGateway, createServiceAPI, LocalEventDispatcher } from '../../src/index.js';
import { FHIRFacade } from '../../src/facade/index.js';
import { announce } from './transform-resource.js';

const gw = new AsyncFHIRGateway({ maxConnections: 64, maxKeepaliveConnections: 64, keepaliveExpiry: 30 });
gw.addSource('ehr', `fhir://127.0.0.1:${process.argv[2]}/fhir/R4/`);
let audited = 0;
const dispatcher = new LocalEventDispatcher();
dispatcher.register('fhir.audit', () => void audited++);
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const app = createServiceAPI({ title: 'bench', dispatcher, logger: silent });
app.registerGateway(gw, { path: '/fhir' });
app.registerService(new FHIRFacade(gw, { callers: [{ name: 'bench', apiKey: process.argv[3]!, sources: ['ehr'], scopes: 'system/Patient.rs' }] }), { path: '/fhir' });
process.on('SIGUSR1', () => console.log(`audited ${audited}`));
announce(await app.listen(0, '127.0.0.1'));
