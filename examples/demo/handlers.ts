/**
 * The demo gateway's handlers. Transform `Patient`: the patient plus an extension with a summary
 * computed from the same source (age, active conditions, last vital signs) and a `meta.tag` saying it
 * was enriched. Aggregate `Condition` and `Observation`: one patient's resources from every source named
 * (default all) in one searchset Bundle, with an OperationOutcome entry for each source that failed.
 * @module
 */
import { aggregateSources, type AsyncFHIRGateway, type Extension, type Observation, type Patient } from '../../src/index.js';

/**
 * The URL of the summary extension the transform adds.
 *
 * @example
 * ```ts
 * const summary = patient.extension?.find((e) => e.url === SUMMARY_EXTENSION_URL);
 * ```
 */
export const SUMMARY_EXTENSION_URL = 'http://example.org/fhir/StructureDefinition/fhirgate-demo-patient-summary';

/**
 * The `meta.tag` the transform adds.
 *
 * @example
 * ```ts
 * patient.meta?.tag?.some((t) => t.system === ENRICHED_TAG.system && t.code === ENRICHED_TAG.code);
 * ```
 */
export const ENRICHED_TAG = Object.freeze({ system: 'urn:fhirgate:demo', code: 'enriched', display: 'Enriched by the fhirgate demo' });

/** Each source's search answers within this time, or is reported as failed. */
const AGGREGATE_TIMEOUT_SECONDS = 10;

/**
 * Registers the transform and aggregate handlers on `gw`.
 *
 * @example
 * ```ts
 * registerHandlers(gw);
 * app.registerGateway(gw, { path: '/fhir' }); // GET /fhir/transform/Patient/a-patient-1?source=ehr-a
 * ```
 */
export function registerHandlers(gw: AsyncFHIRGateway): void {
  gw.transform('Patient', (id, source) => summarisePatient(gw, id, source));
  for (const resourceType of ['Condition', 'Observation'] as const) {
    gw.aggregate(resourceType, (patientId, sources) =>
      aggregateSources(gw, { resourceType, params: { patient: patientId }, sources: sources ?? gw.sourceNames, timeoutSeconds: AGGREGATE_TIMEOUT_SECONDS }));
  }
}

async function summarisePatient(gw: AsyncFHIRGateway, id: string, source: string | undefined): Promise<Patient> {
  const [patient, conditions, vitals] = await Promise.all([
    gw.read('Patient', id, source),
    gw.search('Condition', { patient: id, 'clinical-status': 'active', _count: 100 }, source),
    gw.search('Observation', { patient: id, category: 'vital-signs', _sort: '-date', _count: 100 }, source),
  ]);
  const age = ageInYears(patient.birthDate, new Date());
  const activeConditions = conditions.total ?? conditions.entry?.length ?? 0;
  const lastVitals = latestPerCode((vitals.entry ?? []).map((e) => e.resource as Observation));
  const name = patient.name?.[0];
  const fullName = [...(name?.given ?? []), name?.family ?? ''].join(' ').trim() || `Patient/${id}`;
  const text = [
    `${fullName}${age === undefined ? '' : `, ${age} years`}`,
    `${activeConditions} active condition(s)`,
    lastVitals.length === 0 ? 'no vital signs' : `last vital signs: ${lastVitals.map(describeObservation).join('; ')}`,
  ].join(', ');
  const parts: Extension[] = [
    { url: 'text', valueString: text },
    ...(age === undefined ? [] : [{ url: 'age', valueAge: { value: age, unit: 'years', system: 'http://unitsofmeasure.org', code: 'a' } }]),
    { url: 'activeConditions', valueInteger: activeConditions },
    ...lastVitals.map((o): Extension => ({ url: 'lastVitalSign', valueReference: { reference: `Observation/${o.id}`, display: describeObservation(o) } })),
  ];
  return {
    ...patient,
    meta: { ...patient.meta, tag: [...(patient.meta?.tag ?? []), { ...ENRICHED_TAG }] },
    extension: [...(patient.extension ?? []), { url: SUMMARY_EXTENSION_URL, extension: parts }],
  };
}

/** Whole years from an ISO date (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`) to `now`; undefined without a date. */
function ageInYears(birthDate: string | undefined, now: Date): number | undefined {
  const match = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(birthDate ?? '');
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2] ?? 1), Number(match[3] ?? 1)];
  const hadBirthday = now.getUTCMonth() + 1 > month || (now.getUTCMonth() + 1 === month && now.getUTCDate() >= day);
  return now.getUTCFullYear() - year - (hadBirthday ? 0 : 1);
}

/** The first observation of each code, from a list sorted newest first. */
function latestPerCode(observations: readonly Observation[]): Observation[] {
  const seen = new Set<string>();
  return observations.filter((o) => {
    const code = o.code.coding?.[0]?.code ?? o.code.text ?? '';
    if (seen.has(code)) return false;
    seen.add(code);
    return true;
  });
}

function describeObservation(o: Observation): string {
  const what = o.code.text ?? o.code.coding?.[0]?.display ?? 'observation';
  const value = o.valueQuantity === undefined ? '' : ` ${o.valueQuantity.value} ${o.valueQuantity.unit ?? ''}`.trimEnd();
  const when = o.effectiveDateTime === undefined ? '' : ` (${o.effectiveDateTime.slice(0, 10)})`;
  return `${what}${value}${when}`;
}
