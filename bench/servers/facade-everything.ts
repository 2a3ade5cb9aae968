/**
 * The FHIR facade for the `$everything` rows over everything-upstream.ts (port in argv[2]): sources `ehr`
 * and `lab`, a caller keyed by argv[3] that may call `$everything`, the gateway's identity settings with
 * `ttlSeconds` argv[4] (`300`: the resolution cached; `0`: resolved on every request), an AuditEvent built
 * and delivered per access. On SIGUSR1 prints `audited <count> <bytes of the last AuditEvent's JSON> <bytes of all>`.
 */
import { AsyncFHIRGateway, createServiceAPI, LocalEventDispatcher } from '../../src/index.js';
import { FHIRFacade } from '../../src/facade/index.js';
import { EVERYTHING_BASES, EVERYTHING_MRN } from './everything-fixture.js';
import { announce } from './transform-resource.js';

const gw = new AsyncFHIRGateway({ maxConnections: 64, maxKeepaliveConnections: 64, keepaliveExpiry: 30, identity: { systems: [EVERYTHING_MRN], ttlSeconds: Number(process.argv[4]) } });
for (const [source, [base]] of Object.entries(EVERYTHING_BASES)) gw.addSource(source, `fhir://127.0.0.1:${process.argv[2]}${base}/`);
const dispatcher = new LocalEventDispatcher();
let audited = 0;
let lastBytes = 0;
let totalBytes = 0;
dispatcher.register('fhir.audit', ([, payload]) => {
  audited++;
  lastBytes = Buffer.byteLength(String((payload as { audit_event?: unknown }).audit_event));
  totalBytes += lastBytes;
});
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const app = createServiceAPI({ title: 'bench', dispatcher, logger: silent });
app.registerGateway(gw, { path: '/fhir' });
app.registerService(new FHIRFacade(gw, { callers: [{ name: 'bench', apiKey: process.argv[3]!, sources: Object.keys(EVERYTHING_BASES), scopes: 'system/*.rs', operations: ['$everything'] }] }), { path: '/fhir' });
process.on('SIGUSR1', () => console.log(`audited ${audited} ${lastBytes} ${totalBytes}`));
announce(await app.listen(0, '127.0.0.1'));
