/** The two sources of the `$everything` rows and the patient they share. */

/** The identifier system the two sources' patients share (one MRN, value `1`). */
export const EVERYTHING_MRN = 'http://hospital.example.org/mrn';

/** Source name → its base path on the upstream and its local id of the patient. */
export const EVERYTHING_BASES = { ehr: ['/fhir/R4', 'e-1'], lab: ['/lab/R4', 'l-1'] } as const;

/** Resources per source in `$everything`: the Patient and 49 Observations. */
export const EVERYTHING_ENTRIES = 50;

/** What the rows ask the facade: ehr's patient, by its federated id. */
export const EVERYTHING_PATH = '/fhir/all/Patient/ehr.e-1/$everything';
