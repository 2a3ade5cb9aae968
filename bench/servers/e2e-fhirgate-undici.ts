/**
 * Diagnostic contender of `e2e-transform`: fhirgate's host with the same features as e2e-fhirgate.ts, whose
 * transform handler reads the Patient from the fixed-response upstream (port in argv[2]) with an undici
 * Pool instead of the gateway's `node:http` client, and adds the extension. Beside the other two it
 * separates the host's cost from the upstream client's: it is not a way fhirgate reads a source.
 */
import { Pool } from 'undici';
import { AsyncFHIRGateway, createServiceAPI } from '../../src/index.js';
import { fhirgateFileLogger } from './features.js';
import { announce, SUMMARY_EXTENSION } from './transform-resource.js';

const pool = new Pool(`http://127.0.0.1:${process.argv[2]}`, { connections: 64 });
const gw = new AsyncFHIRGateway();
gw.transform('Patient', async (id) => {
  const upstream = await pool.request({ path: `/fhir/R4/Patient/${encodeURIComponent(id)}`, method: 'GET', headers: { accept: 'application/fhir+json' } });
  if (upstream.statusCode !== 200) {
    await upstream.body.dump();
    throw new Error(`upstream answered ${upstream.statusCode}`);
  }
  const patient = (await upstream.body.json()) as { resourceType: 'Patient'; extension?: unknown[] };
  return { ...patient, extension: [...(patient.extension ?? []), SUMMARY_EXTENSION] };
});
const app = createServiceAPI({ title: 'bench', logger: fhirgateFileLogger('e2e-fhirgate-undici'), metrics: true });
app.registerGateway(gw, { path: '/fhir' });
announce(await app.listen(0, '127.0.0.1'));
