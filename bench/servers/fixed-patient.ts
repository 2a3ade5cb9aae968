/** The Patient every fixed-response upstream answers with, and the headers it comes with. */

/** The Patient's JSON text. */
export const FIXED_PATIENT = JSON.stringify({
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
});

/** The response headers of a read of it. */
export const FIXED_PATIENT_HEADERS = { 'content-type': 'application/fhir+json', 'content-length': String(Buffer.byteLength(FIXED_PATIENT)), etag: 'W/"1"' };
