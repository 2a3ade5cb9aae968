/**
 * One replica for `npm run scale-test`: fhirgate's host serving a transform handler that returns a cached
 * resource, `/health/ready` for the load balancer, `readinessDrainMs` from READINESS_DRAIN_MS (default
 * 1000). Listens on PORT (default 0) and prints `listening <port>`. SIGTERM drains (readiness 503, then
 * in-flight requests finish) and exits 0.
 */
import { AsyncFHIRGateway, createServiceAPI } from '../../src/index.js';
import { cachedPatient } from './transform-resource.js';

const gw = new AsyncFHIRGateway();
gw.transform('Patient', (id) => ({ ...cachedPatient, id }));
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const app = createServiceAPI({ title: 'scale replica', logger: quiet, readinessDrainMs: Number(process.env['READINESS_DRAIN_MS'] ?? 1000) });
app.registerGateway(gw, { path: '/fhir' });
const server = await app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
const address = server.address();
console.log(`listening ${typeof address === 'object' && address !== null ? address.port : 0}`);
process.once('SIGTERM', () => {
  app.close().then(() => process.exit(0), () => process.exit(1));
});
