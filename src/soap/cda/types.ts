/**
 * Plain objects read from a CDA R2 document.
 * @module
 */

/** A coded value (`CD`/`CE`): `codeSystem` is the OID the document gave. */
export interface CDACode {
  code?: string;
  codeSystem?: string;
  codeSystemName?: string;
  display?: string;
}

/** An instance identifier (`II`). */
export interface CDAIdentifier {
  root?: string;
  extension?: string;
}

/** A person name. */
export interface CDAName {
  given: string[];
  family?: string;
}

/** The patient of the document (`recordTarget/patientRole`). */
export interface CDAPatient {
  ids: CDAIdentifier[];
  name?: CDAName;
  /** `administrativeGenderCode/@code` (`M`, `F`, `UN`). */
  gender?: string;
  /** HL7 TS (`19810916`). */
  birthTime?: string;
}

/** The first author of the document (a person when there is one). */
export interface CDAAuthor {
  ids: CDAIdentifier[];
  name?: CDAName;
  organization?: string;
  /** HL7 TS. */
  time?: string;
}

/** The document header. */
export interface CDAHeader {
  id?: CDAIdentifier;
  title?: string;
  /** The document type (`code`, e.g. LOINC 34133-9). */
  documentType?: CDACode;
  /** HL7 TS (`20140916152158-0500`). */
  effectiveTime?: string;
  patient: CDAPatient;
  author?: CDAAuthor;
}

/** A section: its code, title and narrative text as plain text. */
export interface CDASection {
  code?: CDACode;
  title?: string;
  text: string;
}

/** A problem (from the problem list section, LOINC 11450-4). */
export interface CDAProblem {
  id?: CDAIdentifier;
  /** The problem code (the observation's `value`), when coded. */
  code?: CDACode;
  /** The narrative the entry points to, e.g. `CHF`. */
  text?: string;
  /** The clinical status in lower case (`active`, `inactive`, `resolved`). */
  status?: string;
  onset?: string;
  abatement?: string;
}

/** A medication (from the medications section, LOINC 10160-0). */
export interface CDAMedication {
  id?: CDAIdentifier;
  code?: CDACode;
  text?: string;
  /** `statusCode/@code` in lower case (`active`, `completed`). */
  status?: string;
  start?: string;
  end?: string;
  dose?: { value: number; unit?: string };
  route?: CDACode;
}

/** An allergy or intolerance (from the allergies section, LOINC 48765-2). */
export interface CDAAllergy {
  id?: CDAIdentifier;
  /** What the patient reacts to. */
  allergen?: CDACode;
  text?: string;
  /** The kind of reaction propensity (the observation's `code`, e.g. SNOMED 418471000 food). */
  category?: CDACode;
  status?: string;
  onset?: string;
  reactions: CDACode[];
  severity?: CDACode;
}

/** An allergy to add to a document: as {@link CDAAllergy}, `reactions` optional. */
export type CDAAllergyInput = Omit<CDAAllergy, 'reactions'> & { reactions?: readonly CDACode[] };

/** Everything {@link readCDA} reads. */
export interface CDADocument {
  header: CDAHeader;
  /** Every section of the structured body, in order. */
  sections: CDASection[];
  problems: CDAProblem[];
  medications: CDAMedication[];
  allergies: CDAAllergy[];
  /** The sections other than problems, medications and allergies that have narrative text. */
  notes: CDASection[];
}
