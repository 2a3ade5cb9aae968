/** fhirgate's host serving the cached transform resource with its access log at `info` to a file and metrics on. */
import { AsyncFHIRGateway, createServiceAPI } from '../../src/index.js';
import { fhirgateFileLogger } from './features.js';
import { announce, cachedPatient } from './transform-resource.js';

const gw = new AsyncFHIRGateway();
gw.transform('Patient', (id) => ({ ...cachedPatient, id }));
const app = createServiceAPI({ title: 'bench', logger: fhirgateFileLogger('host-fhirgate'), metrics: true });
app.registerGateway(gw, { path: '/fhir' });
announce(await app.listen(0, '127.0.0.1'));
