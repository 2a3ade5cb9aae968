/**
 * End to end: fhirgate's host whose transform handler reads the Patient from the fixed-response upstream
 * (port in argv[2]) through the gateway and adds an extension; access log and metrics on.
 */
import { AsyncFHIRGateway, createServiceAPI } from '../../src/index.js';
import { fhirgateFileLogger } from './features.js';
import { announce, SUMMARY_EXTENSION } from './transform-resource.js';

const gw = new AsyncFHIRGateway({ maxConnections: 64, maxKeepaliveConnections: 64, keepaliveExpiry: 30 });
gw.addSource('upstream', `fhir://127.0.0.1:${process.argv[2]}/fhir/R4/`);
gw.transform('Patient', async (id, source) => {
  const patient = await gw.read('Patient', id, source);
  return { ...patient, extension: [...(patient.extension ?? []), SUMMARY_EXTENSION] };
});
const app = createServiceAPI({ title: 'bench', logger: fhirgateFileLogger('e2e-fhirgate'), metrics: true });
app.registerGateway(gw, { path: '/fhir' });
announce(await app.listen(0, '127.0.0.1'));
