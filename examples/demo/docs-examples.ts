/**
 * The examples the demo gives `/openapi.json` and `/docs`: ids its sandboxes really hold, so that every
 * pre-filled form on the docs page answers 200 when sent as it is.
 * @module
 */
import type { OpenAPIExamples } from '../../src/index.js';
import { CDS_SERVICE_ID } from './cds.js';
import { SHARED_PATIENT, sampleRequests, writeRequests } from './requests.js';

/**
 * The demo's OpenAPI examples, keyed `'<METHOD> /path'`.
 *
 * @example
 * ```ts
 * createServiceAPI({ openapiExamples: demoOpenAPIExamples() });
 * ```
 */
export function demoOpenAPIExamples(): OpenAPIExamples {
  const byKind = (kind: string) => sampleRequests().find((r) => r.kind === kind)!;
  const cdsBody = JSON.parse(byKind('cds').body!) as unknown;
  const [create, update] = writeRequests();
  const patient = { id: SHARED_PATIENT.id, source: 'ehr-a' };
  const createBody = JSON.parse(create!.body!) as Record<string, unknown>;
  const updateBody = JSON.parse(update!.body!) as Record<string, unknown>;
  return {
    'GET /fhir/transform/Patient/{id}': { parameters: patient },
    'GET /fhir/aggregate/Condition': { parameters: { patient_id: SHARED_PATIENT.id, sources: ['ehr-a', 'ehr-b'] } },
    'GET /fhir/aggregate/Observation': { parameters: { patient_id: SHARED_PATIENT.id, sources: ['ehr-a', 'ehr-b'] } },
    'POST /cds/cds-services/{id}': { parameters: { id: CDS_SERVICE_ID }, body: cdsBody },
    [`POST /cds/cds-services/${CDS_SERVICE_ID}`]: { body: cdsBody },
    'POST /notereader': { body: byKind('soap').body },
    'POST /demo/{source}/Patient': { parameters: { source: 'ehr-a' }, body: createBody, response: { ...createBody, id: '6f1c0d2e-…', meta: { versionId: '1', lastUpdated: '2026-01-01T12:00:00Z' } } },
    'PUT /demo/{source}/Patient/{id}': { parameters: { source: 'ehr-a', id: 'a-patient-3' }, body: updateBody, response: { ...updateBody, meta: { versionId: '2', lastUpdated: '2026-01-01T12:00:00Z' } } },
    'DELETE /demo/{source}/Patient/{id}': { parameters: { source: 'ehr-b', id: 'b-patient-1' }, response: { deleted: true } },
  };
}
