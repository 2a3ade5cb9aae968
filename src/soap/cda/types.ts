/**
 * Plain objects read from a CDA R2 document.
 * @module
 */

/** A coded value (`CD`/`CE`): `codeSystem` is the OID the document gave. */
export interface CdaCode {
  code?: string;
  codeSystem?: string;
  codeSystemName?: string;
  display?: string;
}

/** An instance identifier (`II`). */
export interface CdaIdentifier {
  root?: string;
  extension?: string;
}

/** A person name. */
export interface CdaName {
  given: string[];
  family?: string;
}

/** The patient of the document (`recordTarget/patientRole`). */
export interface CdaPatient {
  ids: CdaIdentifier[];
  name?: CdaName;
  /** `administrativeGenderCode/@code` (`M`, `F`, `UN`). */
  gender?: string;
  /** HL7 TS (`19810916`). */
  birthTime?: string;
}

/** The first author of the document (a person when there is one). */
export interface CdaAuthor {
  ids: CdaIdentifier[];
  name?: CdaName;
  organization?: string;
  /** HL7 TS. */
  time?: string;
}

/** The document header. */
export interface CdaHeader {
  id?: CdaIdentifier;
  title?: string;
  /** The document type (`code`, e.g. LOINC 34133-9). */
  documentType?: CdaCode;
  /** HL7 TS (`20140916152158-0500`). */
  effectiveTime?: string;
  patient: CdaPatient;
  author?: CdaAuthor;
}

/** A section: its code, title and narrative text as plain text. */
export interface CdaSection {
  code?: CdaCode;
  title?: string;
  text: string;
}

/** A problem (from the problem list section, LOINC 11450-4). */
export interface CdaProblem {
  id?: CdaIdentifier;
  /** The problem code (the observation's `value`), when coded. */
  code?: CdaCode;
  /** The narrative the entry points to, e.g. `CHF`. */
  text?: string;
  /** The clinical status in lower case (`active`, `inactive`, `resolved`). */
  status?: string;
  onset?: string;
  abatement?: string;
}

/** A medication (from the medications section, LOINC 10160-0). */
export interface CdaMedication {
  id?: CdaIdentifier;
  code?: CdaCode;
  text?: string;
  /** `statusCode/@code` in lower case (`active`, `completed`). */
  status?: string;
  start?: string;
  end?: string;
  dose?: { value: number; unit?: string };
  route?: CdaCode;
}

/** An allergy or intolerance (from the allergies section, LOINC 48765-2). */
export interface CdaAllergy {
  id?: CdaIdentifier;
  /** What the patient reacts to. */
  allergen?: CdaCode;
  text?: string;
  /** The kind of reaction propensity (the observation's `code`, e.g. SNOMED 418471000 food). */
  category?: CdaCode;
  status?: string;
  onset?: string;
  reactions: CdaCode[];
  severity?: CdaCode;
}

/** An allergy to add to a document: as {@link CdaAllergy}, `reactions` optional. */
export type CdaAllergyInput = Omit<CdaAllergy, 'reactions'> & { reactions?: readonly CdaCode[] };

/** Everything {@link readCda} reads. */
export interface CdaDocument {
  header: CdaHeader;
  /** Every section of the structured body, in order. */
  sections: CdaSection[];
  problems: CdaProblem[];
  medications: CdaMedication[];
  allergies: CdaAllergy[];
  /** The sections other than problems, medications and allergies that have narrative text. */
  notes: CdaSection[];
}
