/**
 * The Patient compartment (FHIR R4 CompartmentDefinition `patient`, for the types a gateway's callers
 * use most): which search parameter ties a type to a patient, and which elements hold the reference.
 * A type not listed is outside every patient compartment: a compartment-bound caller cannot reach it.
 * @module
 */

/** Per type: the search parameter that constrains a search, then the element paths that hold the patient. */
const MEMBERS: Readonly<Record<string, readonly [string, ...string[]]>> = {
  AllergyIntolerance: ['patient', 'patient', 'recorder', 'asserter'],
  Appointment: ['patient', 'participant.actor'],
  CarePlan: ['patient', 'subject'],
  CareTeam: ['patient', 'subject', 'participant.member'],
  Claim: ['patient', 'patient'],
  Communication: ['subject', 'subject', 'recipient', 'sender'],
  Composition: ['subject', 'subject', 'author'],
  Condition: ['patient', 'subject', 'asserter'],
  Consent: ['patient', 'patient'],
  Coverage: ['beneficiary', 'beneficiary', 'subscriber', 'policyHolder'],
  Device: ['patient', 'patient'],
  DiagnosticReport: ['subject', 'subject'],
  DocumentReference: ['subject', 'subject', 'author'],
  Encounter: ['patient', 'subject'],
  ExplanationOfBenefit: ['patient', 'patient'],
  FamilyMemberHistory: ['patient', 'patient'],
  Flag: ['patient', 'subject'],
  Goal: ['patient', 'subject'],
  Immunization: ['patient', 'patient'],
  List: ['subject', 'subject', 'source'],
  MedicationAdministration: ['patient', 'subject', 'performer.actor'],
  MedicationDispense: ['subject', 'subject', 'receiver'],
  MedicationRequest: ['subject', 'subject'],
  MedicationStatement: ['subject', 'subject'],
  Observation: ['subject', 'subject', 'performer'],
  Procedure: ['patient', 'subject', 'performer.actor'],
  QuestionnaireResponse: ['subject', 'subject', 'author'],
  RelatedPerson: ['patient', 'patient'],
  ServiceRequest: ['subject', 'subject', 'performer'],
  Specimen: ['subject', 'subject'],
};

/** Per type (a `Map`: a type is an answer's text, never a prototype's), the element paths that hold the patient, split into their steps once. */
const PATHS: ReadonlyMap<string, readonly (readonly string[])[]> = new Map(Object.entries(MEMBERS).map(([type, [, ...paths]]) => [type, paths.map((p) => p.split('.'))]));

/** The types of the Patient compartment, Patient first (what `$everything` searches a source for). */
export function compartmentTypes(): readonly string[] {
  return ['Patient', ...Object.keys(MEMBERS)];
}

/**
 * The search parameter that limits a search of `type` to a patient (`_id` for Patient itself), or
 * `undefined` when the type is outside the Patient compartment.
 */
export function compartmentParam(type: string): string | undefined {
  if (type === 'Patient') return '_id';
  return Object.hasOwn(MEMBERS, type) ? MEMBERS[type]![0] : undefined;
}

/**
 * True when `resource` is in the compartment of `Patient/<patientId>`: the Patient itself (or one it
 * links to), or a resource of a listed type whose patient elements reference it. `bases` are the
 * absolute bases a reference may start with (the upstream's and the facade's).
 */
export function inCompartment(resource: unknown, patientId: string, bases: readonly string[]): boolean {
  if (typeof resource !== 'object' || resource === null) return false;
  const r = resource as Record<string, unknown>;
  if (r.resourceType === 'Patient') return r.id === patientId;
  const paths = typeof r.resourceType === 'string' ? PATHS.get(r.resourceType) : undefined;
  if (paths === undefined) return false;
  const wanted = `Patient/${patientId}`;
  for (const path of paths) {
    for (const element of elementsAt(r, path)) if (typeof element.reference === 'string' && localReference(element.reference, bases) === wanted) return true;
  }
  return false;
}

/**
 * True when a write of `resource` stays in the compartment of `Patient/<patientId>` (SMART `patient/*.c`
 * and `.u` semantics): it is in the compartment, and every Reference at the type's patient elements is
 * either the caller's patient or, provably, no patient at all. A reference to another patient, to a
 * Patient on another server, a contained Patient, or one the facade cannot read as `Type/id` (a logical
 * `identifier` without a non-Patient `type`, `urn:uuid:`, …) makes it false.
 */
export function writableInCompartment(resource: unknown, patientId: string, bases: readonly string[]): boolean {
  if (!inCompartment(resource, patientId, bases)) return false;
  const r = resource as Record<string, unknown>;
  if (r.resourceType === 'Patient') return true;
  const wanted = `Patient/${patientId}`;
  const contained = Array.isArray(r.contained) ? (r.contained as { id?: unknown; resourceType?: unknown }[]) : [];
  return PATHS.get(r.resourceType as string)!.every((path) =>
    elementsAt(r, path).every((element) => {
      const ref = element.reference;
      if (typeof ref !== 'string') {
        const logical = element.identifier !== undefined || element.type === 'Patient';
        return !logical || (typeof element.type === 'string' && element.type !== 'Patient');
      }
      if (ref.startsWith('#')) return contained.some((c) => `#${String(c.id)}` === ref && c.resourceType !== 'Patient');
      if (localReference(ref, bases) === wanted) return true;
      const type = TYPED_REFERENCE.exec(ref)?.[1];
      return type !== undefined && type !== 'Patient';
    }));
}

/** The type of a reference that ends in `Type/id` (optionally `/_history/vid`), relative or absolute. */
const TYPED_REFERENCE = /(?:^|\/)([A-Za-z]+)\/[A-Za-z0-9\-.]{1,64}(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/;

/** The objects (Reference elements) at an element path (arrays walked). */
function elementsAt(value: unknown, path: readonly string[]): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  collect(value, path, 0, found);
  return found;
}

/** Adds to `found` the objects at `path` from its step `at` on, under `value`. */
function collect(value: unknown, path: readonly string[], at: number, found: Record<string, unknown>[]): void {
  if (Array.isArray(value)) {
    for (const v of value) collect(v, path, at, found);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const obj = value as Record<string, unknown>;
  if (at === path.length) found.push(obj);
  else collect(obj[path[at]!], path, at + 1, found);
}

const SLASH = 0x2f;

/** `Type/id` of a relative or base-absolute reference, without `_history`; anything else as given. */
function localReference(reference: string, bases: readonly string[]): string {
  let ref = reference;
  for (const base of bases) {
    if (ref.startsWith(base) && ref.charCodeAt(base.length) === SLASH) {
      ref = ref.slice(base.length + 1);
      break;
    }
  }
  const m = /^([A-Za-z]+\/[A-Za-z0-9\-.]{1,64})(\/_history\/.*)?$/.exec(ref);
  return m === null ? reference : m[1]!;
}

/**
 * The search parameters a compartment-bound caller may not use unless allowed: they reach outside
 * the compartment (chains, reverse chains, includes).
 */
export function reachingParams(query: URLSearchParams): string[] {
  const found: string[] = [];
  for (const key of new Set(query.keys())) {
    const base = key.split(':')[0]!;
    if (key.includes('.') || base === '_has' || base === '_include' || base === '_revinclude' || base === '_contained') found.push(key);
  }
  return found;
}

/**
 * The patient a resource is about (`Patient/<id>`): the Patient itself, or the first patient reference
 * among its compartment elements; `undefined` when there is none.
 */
export function patientOf(resource: unknown, bases: readonly string[]): string | undefined {
  if (typeof resource !== 'object' || resource === null) return undefined;
  const r = resource as Record<string, unknown>;
  if (r.resourceType === 'Patient') return typeof r.id === 'string' ? `Patient/${r.id}` : undefined;
  const paths = typeof r.resourceType === 'string' ? PATHS.get(r.resourceType) : undefined;
  for (const path of paths ?? []) {
    for (const element of elementsAt(r, path)) {
      const local = typeof element.reference === 'string' ? localReference(element.reference, bases) : undefined;
      if (local?.startsWith('Patient/') === true) return local;
    }
  }
  return undefined;
}
