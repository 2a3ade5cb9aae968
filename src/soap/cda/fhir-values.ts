/**
 * Turning CDA data types into FHIR data types: code systems, timestamps, CodeableConcepts, references.
 * @module
 */
import type { CodeableConcept, Identifier, Reference } from '../../fhir/index.js';
import type { CDACode, CDAHeader, CDAIdentifier } from './types.js';

/** The FHIR URIs of the code systems CDA documents name by OID; others become `urn:oid:…`. */
const SYSTEMS: Readonly<Record<string, string>> = Object.freeze({
  '2.16.840.1.113883.6.96': 'http://snomed.info/sct',
  '2.16.840.1.113883.6.1': 'http://loinc.org',
  '2.16.840.1.113883.6.88': 'http://www.nlm.nih.gov/research/umls/rxnorm',
  '2.16.840.1.113883.6.90': 'http://hl7.org/fhir/sid/icd-10-cm',
  '2.16.840.1.113883.6.3': 'http://hl7.org/fhir/sid/icd-10',
  '2.16.840.1.113883.6.103': 'http://hl7.org/fhir/sid/icd-9-cm',
  '2.16.840.1.113883.6.69': 'http://hl7.org/fhir/sid/ndc',
  '2.16.840.1.113883.3.26.1.1': 'http://ncithesaurus-stage.nci.nih.gov',
  '2.16.840.1.113883.6.8': 'http://unitsofmeasure.org',
});

/** The FHIR system URI for a code system OID. */
export function systemUri(oid: string): string {
  return SYSTEMS[oid] ?? (/^[0-2](\.(0|[1-9][0-9]*))+$/.test(oid) ? `urn:oid:${oid}` : oid);
}

const TS = /^(\d{4})(\d{2})?(\d{2})?(?:(\d{2})(\d{2})?(\d{2})?(?:\.\d+)?)?([+-]\d{4})?$/;

/**
 * An HL7 v3 TS (`20140916152158-0500`) as a FHIR `dateTime` (`2014-09-16T15:21:58-05:00`). A time
 * without a time zone keeps only its date (FHIR requires a zone with a time); `undefined` when the
 * value is not a TS.
 */
export function toFHIRDateTime(ts: string | undefined): string | undefined {
  const m = ts === undefined ? null : TS.exec(ts);
  if (!m) return undefined;
  const [, y, mo, d, h, mi = '00', s = '00', zone] = m;
  const date = [y, mo, d].filter(Boolean).join('-');
  if (h === undefined || zone === undefined || d === undefined) return date;
  return `${date}T${h}:${mi}:${s}${zone.slice(0, 3)}:${zone.slice(3)}`;
}

/** A CodeableConcept from a CDA code: one coding when it has a code, `text` from its display. */
export function toCodeableConcept(code: CDACode | undefined, text?: string): CodeableConcept | undefined {
  const concept: CodeableConcept = {};
  if (code?.code) {
    concept.coding = [{ code: code.code, ...(code.codeSystem ? { system: systemUri(code.codeSystem) } : {}), ...(code.display ? { display: code.display } : {}) }];
  }
  const shown = code?.display ?? text;
  if (shown) concept.text = shown;
  return concept.coding || concept.text ? concept : undefined;
}

/**
 * A FHIR Identifier from a CDA `II`: `root` as the `urn:oid:` system and `extension` as the value, or
 * the root alone as the value (`urn:oid:` / `urn:uuid:`) when there is no extension.
 */
export function toIdentifier(id: CDAIdentifier | undefined): Identifier | undefined {
  if (!id?.root) return id?.extension ? { value: id.extension } : undefined;
  if (id.extension) return { system: systemUri(id.root), value: id.extension };
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id.root);
  return { system: 'urn:ietf:rfc:3986', value: isUuid ? `urn:uuid:${id.root.toLowerCase()}` : `urn:oid:${id.root}` };
}

/** A Reference to the document's patient, by identifier and display name (CDA carries no FHIR id). */
export function patientReference(header: CDAHeader): Reference {
  const ref: Reference = { type: 'Patient' };
  const identifier = toIdentifier(header.patient.ids.find((i) => i.extension) ?? header.patient.ids[0]);
  const name = header.patient.name;
  const display = name ? [...name.given, name.family ?? ''].join(' ').trim() : '';
  if (identifier) ref.identifier = identifier;
  ref.display = display || 'Unknown patient';
  return ref;
}
