/**
 * Converting what `readCDA` read into FHIR R4 resources.
 * @module
 */
import type { AllergyIntolerance, CodeableConcept, Condition, DocumentReference, MedicationStatement, Reference } from '../../fhir/index.js';
import { patientReference, toCodeableConcept, toFHIRDateTime, toIdentifier } from './fhir-values.js';
import type { CDAAllergy, CDADocument, CDAHeader, CDAMedication, CDAProblem, CDASection } from './types.js';

const CLINICAL = 'http://terminology.hl7.org/CodeSystem/condition-clinical';
const ALLERGY_CLINICAL = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical';
const CONDITION_CATEGORY = 'http://terminology.hl7.org/CodeSystem/condition-category';

function status(system: string, cdaStatus: string | undefined): CodeableConcept {
  const code = cdaStatus === 'resolved' || cdaStatus === 'inactive' ? cdaStatus : 'active';
  return { coding: [{ system, code }] };
}

function withIdentifier<T extends { identifier?: unknown }>(resource: T, id: Parameters<typeof toIdentifier>[0]): T {
  const identifier = toIdentifier(id);
  if (identifier) resource.identifier = [identifier];
  return resource;
}

/**
 * A problem as a problem-list `Condition` (clinical status from the CDA status, verification
 * `confirmed`, onset and abatement as dateTimes).
 */
export function problemToCondition(problem: CDAProblem, subject: Reference): Condition {
  const condition: Condition = {
    resourceType: 'Condition',
    clinicalStatus: status(CLINICAL, problem.status),
    verificationStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code: 'confirmed' }] },
    category: [{ coding: [{ system: CONDITION_CATEGORY, code: 'problem-list-item', display: 'Problem List Item' }] }],
    subject,
  };
  const code = toCodeableConcept(problem.code, problem.text);
  const onset = toFHIRDateTime(problem.onset);
  const abatement = toFHIRDateTime(problem.abatement);
  if (code) condition.code = code;
  if (onset) condition.onsetDateTime = onset;
  if (abatement && condition.clinicalStatus?.coding?.[0]?.code !== 'active') condition.abatementDateTime = abatement;
  return withIdentifier(condition, problem.id);
}

/**
 * A medication as a `MedicationStatement` (`active` stays `active`, `completed` stays `completed`,
 * anything else is `unknown`), with its period, route and dose.
 */
export function medicationToStatement(medication: CDAMedication, subject: Reference): MedicationStatement {
  const statuses = ['active', 'completed', 'stopped', 'on-hold', 'intended'];
  const statement: MedicationStatement = {
    resourceType: 'MedicationStatement',
    status: statuses.includes(medication.status ?? '') ? medication.status! : 'unknown',
    medicationCodeableConcept: toCodeableConcept(medication.code, medication.text) ?? { text: 'Unknown medication' },
    subject,
  };
  const start = toFHIRDateTime(medication.start);
  const end = toFHIRDateTime(medication.end);
  if (start || end) statement.effectivePeriod = { ...(start ? { start } : {}), ...(end ? { end } : {}) };
  const route = toCodeableConcept(medication.route);
  const { dose } = medication;
  if (medication.text || route || dose) {
    statement.dosage = [{
      ...(medication.text ? { text: medication.text } : {}),
      ...(route ? { route } : {}),
      ...(dose ? { doseAndRate: [{ doseQuantity: { value: dose.value, ...(dose.unit ? { unit: dose.unit, system: 'http://unitsofmeasure.org', code: dose.unit } : {}) } }] } : {}),
    }];
  }
  return withIdentifier(statement, medication.id);
}

const FOOD = new Set(['418471000', '414285001']);
const MEDICATION = new Set(['416098002', '419511003']);
const SEVERITY: Readonly<Record<string, string>> = { H: 'severe', M: 'moderate', MO: 'moderate', L: 'mild' };

/**
 * An allergy as an `AllergyIntolerance`: the allergen as `code`, the category from the SNOMED CT
 * propensity code (food, medication), reactions with their severity.
 */
export function allergyToAllergyIntolerance(allergy: CDAAllergy, patient: Reference): AllergyIntolerance {
  const resource: AllergyIntolerance = {
    resourceType: 'AllergyIntolerance',
    clinicalStatus: status(ALLERGY_CLINICAL, allergy.status),
    verificationStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification', code: 'confirmed' }] },
    patient,
  };
  const category = allergy.category?.code;
  if (category && FOOD.has(category)) resource.category = ['food'];
  else if (category && MEDICATION.has(category)) resource.category = ['medication'];
  const code = toCodeableConcept(allergy.allergen, allergy.text);
  const onset = toFHIRDateTime(allergy.onset);
  if (code) resource.code = code;
  if (onset) resource.onsetDateTime = onset;
  const severity = SEVERITY[allergy.severity?.code ?? ''];
  const manifestations = allergy.reactions.flatMap((r) => toCodeableConcept(r) ?? []);
  if (manifestations.length > 0) resource.reaction = [{ manifestation: manifestations, ...(severity ? { severity } : {}) }];
  return withIdentifier(resource, allergy.id);
}

/**
 * A note section as a `DocumentReference` (status `current`, the section code as `type`, the text as
 * a base64 `text/plain` attachment).
 */
export function noteToDocumentReference(note: CDASection, header: CDAHeader): DocumentReference {
  const reference: DocumentReference = {
    resourceType: 'DocumentReference',
    status: 'current',
    subject: patientReference(header),
    content: [{
      attachment: {
        contentType: 'text/plain; charset=utf-8',
        data: Buffer.from(note.text, 'utf8').toString('base64'),
        ...(note.title ? { title: note.title } : {}),
      },
    }],
  };
  const type = toCodeableConcept(note.code, note.title);
  const date = toFHIRDateTime(header.effectiveTime);
  if (type) reference.type = type;
  if (note.title) reference.description = note.title;
  if (date?.includes('T')) reference.date = date;
  return reference;
}

/** The FHIR resources of a whole CDA document, by kind. */
export interface CDAFHIRResources {
  conditions: Condition[];
  medicationStatements: MedicationStatement[];
  allergyIntolerances: AllergyIntolerance[];
  documentReferences: DocumentReference[];
}

/**
 * Converts everything `readCDA` read: problems, medications, allergies and notes, all about the
 * header's patient.
 *
 * @example
 * ```ts
 * nr.method('ProcessDocument', ({ document }) => {
 *   const { conditions } = cdaToFHIR(readCDA(document));
 *   return { document, error: conditions.length === 0 ? 'no problems' : '' };
 * });
 * ```
 */
export function cdaToFHIR(doc: CDADocument): CDAFHIRResources {
  const subject = patientReference(doc.header);
  return {
    conditions: doc.problems.map((p) => problemToCondition(p, subject)),
    medicationStatements: doc.medications.map((m) => medicationToStatement(m, subject)),
    allergyIntolerances: doc.allergies.map((a) => allergyToAllergyIntolerance(a, subject)),
    documentReferences: doc.notes.map((n) => noteToDocumentReference(n, doc.header)),
  };
}
