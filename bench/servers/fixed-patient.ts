/** The Patient every fixed-response upstream answers with, the headers it comes with, and the searchset Bundle of the federated rows. */

const PATIENT = {
  resourceType: 'Patient',
  id: 'bench-1',
  meta: { versionId: '1', lastUpdated: '2026-01-01T00:00:00Z' },
  active: true,
  name: [{ use: 'official', family: 'Benchmark', given: ['Bea', 'Q'] }],
  gender: 'female',
  birthDate: '1980-04-12',
  address: [{ line: ['1 Test Street'], city: 'Leeds', postalCode: 'LS1 1AA', country: 'GB' }],
  telecom: [{ system: 'phone', value: '+44 113 000 0000', use: 'home' }],
  identifier: [{ system: 'urn:oid:2.16.840.1.113883.2.1.4.1', value: '9000000009' }],
};

/** The Patient's JSON text. */
export const FIXED_PATIENT = JSON.stringify(PATIENT);

/** The response headers of a read of it. */
export const FIXED_PATIENT_HEADERS = { 'content-type': 'application/fhir+json', 'content-length': String(Buffer.byteLength(FIXED_PATIENT)), etag: 'W/"1"' };

/** The search every federated row sends (to the federated base, or directly to one source). */
export const FEDERATED_QUERY = 'Patient?family=Benchmark';

/** The base paths of the two sources of the federated rows (`ehr` and `lab`) on the fixed-response upstream. */
export const SEARCH_BASES = { ehr: '/fhir/R4', lab: '/lab/R4' } as const;

/** How many Patients each source's search answers. */
export const SEARCH_ENTRIES = 5;

/**
 * The searchset Bundle a source at `base` (absolute, no trailing slash) answers {@link FEDERATED_QUERY}
 * with: {@link SEARCH_ENTRIES} Patients, each with an absolute `fullUrl`, a relative reference and an
 * absolute one under `base` (so that the rewrite and the federated ids have work to do), a `self` link,
 * no `next` link (no page token is signed), and a `total`.
 */
export function searchBundle(base: string): string {
  const entry = Array.from({ length: SEARCH_ENTRIES }, (_, i) => ({
    fullUrl: `${base}/Patient/bench-${i + 1}`,
    resource: { ...PATIENT, id: `bench-${i + 1}`, generalPractitioner: [{ reference: 'Practitioner/gp-1' }], managingOrganization: { reference: `${base}/Organization/org-1` } },
    search: { mode: 'match' },
  }));
  return JSON.stringify({ resourceType: 'Bundle', type: 'searchset', total: SEARCH_ENTRIES, link: [{ relation: 'self', url: `${base}/${FEDERATED_QUERY}` }], entry });
}
