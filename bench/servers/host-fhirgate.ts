/** fhirgate's host serving a transform handler that returns the cached resource. */
import { AsyncFHIRGateway, createServiceAPI } from '../../src/index.js';
import { benchTracer } from './bench-tracer.js';
import { announce, cachedPatient } from './transform-resource.js';

const gw = new AsyncFHIRGateway();
gw.transform('Patient', (id) => ({ ...cachedPatient, id }));
const tracer = benchTracer();
const app = createServiceAPI({ title: 'bench', logger: { debug() {}, info() {}, warn() {}, error() {} }, ...(tracer === undefined ? {} : { tracer }) });
app.registerGateway(gw, { path: '/fhir' });
const server = await app.listen(0, '127.0.0.1');
announce(server);
