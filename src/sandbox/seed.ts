/**
 * The sandbox's deterministic data sets: a handful of patients, each with vital-sign and laboratory
 * observations (LOINC) and conditions (SNOMED CT). No randomness: the same variant always gives the
 * same resources, and the two variants share no ids, so two sandboxes look like two hospitals.
 * @module
 */
import type { Condition, Observation, Patient, Resource } from '../fhir/index.js';

/** The data set variants. */
export type SeedVariant = 'a' | 'b';

interface Person {
  readonly family: string;
  readonly given: readonly string[];
  readonly gender: 'male' | 'female' | 'other';
  readonly birthDate: string;
  readonly city: string;
  readonly state: string;
  /** Indexes into {@link PROBLEMS}. */
  readonly problems: readonly number[];
}

const PEOPLE: Readonly<Record<SeedVariant, readonly Person[]>> = {
  a: [
    { family: 'Chalmers', given: ['Peter', 'James'], gender: 'male', birthDate: '1974-12-25', city: 'Boston', state: 'MA', problems: [0, 1] },
    { family: 'Garcia', given: ['Maria'], gender: 'female', birthDate: '1982-03-14', city: 'Chicago', state: 'IL', problems: [2] },
    { family: 'Nguyen', given: ['Linh'], gender: 'female', birthDate: '1990-07-02', city: 'Seattle', state: 'WA', problems: [3] },
    { family: "O'Brien", given: ['Sean'], gender: 'male', birthDate: '1965-11-30', city: 'Boston', state: 'MA', problems: [0, 3] },
    { family: 'Müller', given: ['Jürgen'], gender: 'male', birthDate: '1958-05-09', city: 'Austin', state: 'TX', problems: [1] },
  ],
  b: [
    { family: 'Okafor', given: ['Chidi'], gender: 'male', birthDate: '1979-02-11', city: 'Denver', state: 'CO', problems: [1] },
    { family: 'Svensson', given: ['Astrid'], gender: 'female', birthDate: '1988-09-23', city: 'Portland', state: 'OR', problems: [2, 3] },
    { family: 'Tanaka', given: ['Yui'], gender: 'female', birthDate: '2001-01-17', city: 'San Diego', state: 'CA', problems: [] },
    { family: 'Dubois', given: ['Élodie'], gender: 'other', birthDate: '1970-06-06', city: 'Miami', state: 'FL', problems: [0] },
  ],
};

const PROBLEMS = [
  { code: '38341003', display: 'Hypertensive disorder' },
  { code: '44054006', display: 'Diabetes mellitus type 2' },
  { code: '195967001', display: 'Asthma' },
  { code: '55822004', display: 'Hyperlipidemia' },
] as const;

const TESTS = [
  { category: 'vital-signs', code: '8867-4', display: 'Heart rate', unit: '/min', ucum: '/min', base: 62, step: 4 },
  { category: 'vital-signs', code: '29463-7', display: 'Body weight', unit: 'kg', ucum: 'kg', base: 58, step: 6.5 },
  { category: 'laboratory', code: '2339-0', display: 'Glucose [Mass/volume] in Blood', unit: 'mg/dL', ucum: 'mg/dL', base: 88, step: 9 },
  { category: 'laboratory', code: '4548-4', display: 'Hemoglobin A1c/Hemoglobin.total in Blood', unit: '%', ucum: '%', base: 5.2, step: 0.4 },
] as const;

/**
 * The identifier system of the sandbox's medical record numbers.
 *
 * @example
 * ```ts
 * await gw.search('Patient', { identifier: `${MRN_SYSTEM}|MRN-A-0001` });
 * ```
 */
export const MRN_SYSTEM = 'urn:oid:2.16.840.1.113883.19.5';
const OBSERVATION_CATEGORY = 'http://terminology.hl7.org/CodeSystem/observation-category';

function patient(variant: SeedVariant, n: number, p: Person): Patient {
  return {
    resourceType: 'Patient',
    id: `${variant}-patient-${n}`,
    identifier: [{ system: MRN_SYSTEM, value: `MRN-${variant.toUpperCase()}-${String(n).padStart(4, '0')}` }],
    active: true,
    name: [{ use: 'official', family: p.family, given: [...p.given] }],
    gender: p.gender,
    birthDate: p.birthDate,
    address: [{ use: 'home', line: [`${n * 12} Main Street`], city: p.city, state: p.state, country: 'US' }],
  };
}

function observations(patientId: string, display: string, n: number): Observation[] {
  return TESTS.flatMap((t, k) => [1, 2].map((visit): Observation => ({
    resourceType: 'Observation',
    id: `${patientId}-obs-${k + 1}-${visit}`,
    status: 'final',
    category: [{ coding: [{ system: OBSERVATION_CATEGORY, code: t.category }] }],
    code: { coding: [{ system: 'http://loinc.org', code: t.code, display: t.display }], text: t.display },
    subject: { reference: `Patient/${patientId}`, display },
    effectiveDateTime: `202${visit + 1}-0${(n % 9) + 1}-1${k}T09:30:00Z`,
    valueQuantity: {
      value: Math.round((t.base + t.step * n + visit * t.step / 2) * 10) / 10,
      unit: t.unit,
      system: 'http://unitsofmeasure.org',
      code: t.ucum,
    },
  })));
}

function conditions(patientId: string, display: string, p: Person): Condition[] {
  return p.problems.map((index, k): Condition => {
    const problem = PROBLEMS[index] as (typeof PROBLEMS)[number];
    return {
      resourceType: 'Condition',
      id: `${patientId}-cond-${k + 1}`,
      clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'problem-list-item' }] }],
      code: { coding: [{ system: 'http://snomed.info/sct', code: problem.code, display: problem.display }], text: problem.display },
      subject: { reference: `Patient/${patientId}`, display },
      onsetDateTime: `20${10 + k * 4 + index}-0${index + 1}-15`,
    };
  });
}

/**
 * The resources of a data set variant, patients first. Patient ids are `<variant>-patient-<n>`.
 *
 * @example
 * ```ts
 * const resources = seedResources('a');
 * resources.filter((r) => r.resourceType === 'Patient').length; // 5
 * ```
 */
export function seedResources(variant: SeedVariant): Resource[] {
  const people = PEOPLE[variant];
  const patients = people.map((p, i) => patient(variant, i + 1, p));
  const clinical = patients.flatMap((pat, i) => {
    const person = people[i] as Person;
    const display = `${person.given.join(' ')} ${person.family}`;
    return [...observations(pat.id as string, display, i + 1), ...conditions(pat.id as string, display, person)];
  });
  return [...patients, ...clinical];
}
