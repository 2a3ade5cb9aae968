/**
 * The requests the demo suggests, with real ids from the sandboxes' seeds: printed as `curl` commands
 * by the banner, sent by the demo test and mixed by the soak benchmark.
 * @module
 */
import { CDS_SERVICE_ID } from './cds.js';
import { processDocumentEnvelope, sampleCda } from './notereader.js';

/** Which part of the demo a request exercises. */
export type SampleKind = 'transform' | 'aggregate' | 'cds' | 'soap';

/**
 * One suggested request, relative to the demo's origin.
 *
 * @example
 * ```ts
 * const r: SampleRequest = { kind: 'transform', title: 'A patient', method: 'GET', path: '/fhir/transform/Patient/a-patient-1' };
 * ```
 */
export interface SampleRequest {
  readonly kind: SampleKind;
  /** One line saying what it shows. */
  readonly title: string;
  readonly method: 'GET' | 'POST';
  /** Path and query. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * `a-patient-1` of seed "a" (ehr-a). The demo adds a problem of theirs to ehr-b at start, so that the
 * aggregate and CDS answers show data from both sources.
 *
 * @example
 * ```ts
 * await gw.create({ resourceType: 'Condition', subject: { reference: `Patient/${SHARED_PATIENT.id}` } }, 'ehr-b');
 * ```
 */
export const SHARED_PATIENT = Object.freeze({ id: 'a-patient-1', mrn: 'MRN-A-0001', given: 'Peter', family: 'Chalmers' });

/**
 * The demo's sample requests, one or more of each kind.
 *
 * @example
 * ```ts
 * for (const r of sampleRequests()) await fetch(origin + r.path, { method: r.method, headers: r.headers, body: r.body });
 * ```
 */
export function sampleRequests(): readonly SampleRequest[] {
  const cdsCall = {
    hook: 'patient-view',
    hookInstance: 'd1577c69-dfbe-44ad-ba6d-3e05e953b2ea',
    context: { userId: 'Practitioner/demo-clinician', patientId: SHARED_PATIENT.id },
  };
  return [
    { kind: 'transform', title: `Transform: Patient/${SHARED_PATIENT.id} from ehr-a (client secret) with a computed summary extension and a meta tag`, method: 'GET', path: `/fhir/transform/Patient/${SHARED_PATIENT.id}?source=ehr-a` },
    { kind: 'transform', title: 'Transform: Patient/b-patient-2 from ehr-b (JWT assertion)', method: 'GET', path: '/fhir/transform/Patient/b-patient-2?source=ehr-b' },
    { kind: 'aggregate', title: `Aggregate: the Conditions of ${SHARED_PATIENT.id} from both sources, each tagged with its source`, method: 'GET', path: `/fhir/aggregate/Condition?patient_id=${SHARED_PATIENT.id}&sources=ehr-a&sources=ehr-b` },
    { kind: 'aggregate', title: 'Aggregate with a failing source: "ehr-c" does not exist and is reported in an OperationOutcome entry', method: 'GET', path: `/fhir/aggregate/Observation?patient_id=${SHARED_PATIENT.id}&sources=ehr-a&sources=ehr-c` },
    { kind: 'cds', title: 'CDS Hooks: patient-view, answered with a card built from both sources', method: 'POST', path: `/cds/cds-services/${CDS_SERVICE_ID}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(cdsCall) },
    { kind: 'soap', title: 'NoteReader: ProcessDocument with a small CDA note; the answer holds the document with the problems it found', method: 'POST', path: '/notereader/', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ProcessDocument' }, body: processDocumentEnvelope(sampleCda(SHARED_PATIENT)) },
  ];
}

/**
 * A suggested write: create, update or delete a Patient through the demo's record routes. Kept apart
 * from {@link sampleRequests}, which the soak benchmark repeats thousands of times.
 *
 * @example
 * ```ts
 * const w: WriteRequest = { kind: 'delete', title: 'Delete', method: 'DELETE', path: '/demo/ehr-a/Patient/a-patient-5' };
 * ```
 */
export interface WriteRequest extends Omit<SampleRequest, 'kind' | 'method'> {
  readonly kind: 'create' | 'update' | 'delete';
  readonly method: 'POST' | 'PUT' | 'DELETE';
}

/** The patient the update rewrites (seed "a"'s third) and the one the delete removes (its fifth). */
const UPDATED = Object.freeze({ id: 'a-patient-3', family: 'Nguyen', given: 'Linh', gender: 'female', birthDate: '1990-07-02' });
const DELETED_ID = 'a-patient-5';

/**
 * The demo's write requests, in an order that works when pasted one after the other: create, update,
 * delete.
 *
 * @example
 * ```ts
 * for (const w of writeRequests()) console.log(toCurl(origin, w));
 * ```
 */
export function writeRequests(): readonly WriteRequest[] {
  const json = { 'content-type': 'application/fhir+json' };
  const created = { resourceType: 'Patient', name: [{ use: 'official', family: 'Newman', given: ['Ada'] }], gender: 'female', birthDate: '1990-04-01' };
  const updated = {
    resourceType: 'Patient',
    id: UPDATED.id,
    active: true,
    name: [{ use: 'official', family: UPDATED.family, given: [UPDATED.given] }],
    telecom: [{ system: 'phone', value: '+1-206-555-0100', use: 'mobile' }],
    gender: UPDATED.gender,
    birthDate: UPDATED.birthDate,
  };
  return [
    { kind: 'create', title: 'Create: a new Patient at ehr-a (201, with the id the server gave it)', method: 'POST', path: '/demo/ehr-a/Patient', headers: json, body: JSON.stringify(created) },
    { kind: 'update', title: `Update: replace Patient/${UPDATED.id} at ehr-a with a phone number added`, method: 'PUT', path: `/demo/ehr-a/Patient/${UPDATED.id}`, headers: json, body: JSON.stringify(updated) },
    { kind: 'delete', title: `Delete: Patient/${DELETED_ID} at ehr-a ({"deleted": true}; reading it afterwards is 410 Gone)`, method: 'DELETE', path: `/demo/ehr-a/Patient/${DELETED_ID}` },
  ];
}

/**
 * `request` as a one-line `curl` command against `origin`. Every argument is single-quoted.
 *
 * @throws RangeError when a part holds a single quote (it could not be pasted safely).
 * @example
 * ```ts
 * toCurl('http://127.0.0.1:8000', sampleRequests()[0]!); // "curl -s 'http://127.0.0.1:8000/fhir/transform/…'"
 * ```
 */
export function toCurl(origin: string, request: SampleRequest | WriteRequest): string {
  const quote = (text: string): string => {
    if (text.includes("'")) throw new RangeError(`toCurl: ${JSON.stringify(text.slice(0, 40))} holds a single quote`);
    return `'${text}'`;
  };
  const words = ['curl', '-s'];
  // curl sends GET without a body and POST with one; any other pairing needs -X.
  if (request.method !== (request.body === undefined ? 'GET' : 'POST')) words.push('-X', request.method);
  for (const [name, value] of Object.entries(request.headers ?? {})) words.push('-H', quote(`${name}: ${value}`));
  if (request.body !== undefined) words.push('--data-binary', quote(request.body));
  words.push(quote(`${origin}${request.path}`));
  return words.join(' ');
}
