/**
 * The cluster of `npm run scale-test`'s rolling-restart case: the replica's app (a transform handler
 * returning a cached resource) on WORKERS (default 2) worker processes behind one port, through
 * `serveCluster`. The primary prints its JSON lines (`cluster listening` with the port, `rolling restart
 * done`, ...) on stdout; the workers log nothing.
 */
import { AsyncFHIRGateway, createJSONLogger, createServiceAPI } from '../../src/index.js';
import { serveCluster } from '../../src/cluster/index.js';
import { cachedPatient } from './transform-resource.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
await serveCluster(
  () => {
    const gw = new AsyncFHIRGateway();
    gw.transform('Patient', (id) => ({ ...cachedPatient, id }));
    return createServiceAPI({ title: 'scale cluster', logger: quiet }).registerGateway(gw, { path: '/fhir' });
  },
  { workers: Number(process.env['WORKERS'] ?? 2), port: 0, logger: createJSONLogger() },
);
