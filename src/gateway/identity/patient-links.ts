/**
 * `Patient.link` within one source (FHIR R4): `replaced-by` is followed to the surviving record, but only
 * when that record confirms it with `replaces` back (so a record cannot claim another's identity on its
 * own); `seealso` and `refer` name other valid records of the same person and are reported, never merged.
 * @module
 */
import type { Identifier } from './patient-query.js';
import type { PatientReader, PatientRecord } from './patient-reader.js';

/** `replaced-by` links followed at most, in one chain. */
const MAX_HOPS = 5;

/** The surviving record of a match and the records it names with `seealso`/`refer`, or why it cannot be trusted. */
export type Survivor = { readonly id: string; readonly seeAlso: readonly string[] } | { readonly problem: string };

/** True when `patient` carries `identifier` (exact system and value). */
export function carries(patient: PatientRecord, identifier: Identifier): boolean {
  return objects(patient.identifier).some((i) => i.system === identifier.system && i.value === identifier.value);
}

/** The identifiers of `patient` whose system passes `keep`. */
export function identifiersOf(patient: PatientRecord, keep: (system: string) => boolean): Identifier[] {
  return objects(patient.identifier)
    .filter((i): i is { system: string; value: string } => typeof i.system === 'string' && typeof i.value === 'string' && i.value !== '' && keep(i.system))
    .map((i) => ({ system: i.system, value: i.value }));
}

/** Follows `replaced-by` from `patient` (whose id is `id`) to the record in use, reading each hop. */
export async function survivorOf(reader: PatientReader, source: string, id: string, patient: PatientRecord, signal: AbortSignal | undefined): Promise<Survivor> {
  const seen = [id];
  let current = patient;
  let currentId = id;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    const forward = linked(current, 'replaced-by');
    if (forward.length === 0) return { id: currentId, seeAlso: [...new Set([...linked(current, 'seealso'), ...linked(current, 'refer')])].filter((x) => x !== '' && x !== currentId) };
    const [next] = forward;
    if (forward.length > 1 || next === undefined || next === '') return { problem: `Patient/${currentId} is replaced by more than one record, or by one outside the source` };
    if (seen.includes(next)) return { problem: `Patient/${currentId}: its replaced-by links form a loop` };
    const target = await reader.read(source, next, signal);
    if (target === undefined) return { problem: `Patient/${currentId} is replaced by Patient/${next}, which the source does not hold` };
    if (!linked(target, 'replaces').includes(currentId)) return { problem: `Patient/${currentId} is replaced by Patient/${next}, which does not say it replaces Patient/${currentId}` };
    seen.push(next);
    current = target;
    currentId = next;
  }
  return { problem: `Patient/${id}: more than ${MAX_HOPS} replaced-by links in a row` };
}

/**
 * The local ids a record links to with `type`. A link that is not a relative `Patient/<id>` (another
 * server, a contained or RelatedPerson record) yields `''`, so that it is never taken for a local record.
 */
function linked(patient: PatientRecord, type: string): string[] {
  return objects(patient.link)
    .filter((l) => l.type === type)
    .map((l) => {
      const reference = typeof l.other === 'object' && l.other !== null ? (l.other as { reference?: unknown }).reference : undefined;
      const m = typeof reference === 'string' ? /^Patient\/([A-Za-z0-9\-.]{1,64})$/.exec(reference) : null;
      return m?.[1] ?? '';
    });
}

function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];
}
