/**
 * Reading the entries of the problem, medication and allergy sections.
 * @module
 */
import { child, children, descendants } from '../xml-tree.js';
import type { XMLElement } from '../xml-tree.js';
import { referencedText } from './narrative.js';
import type { CDAAllergy, CDAMedication, CDAProblem } from './types.js';
import { readCode, readId, readTime } from './values.js';

/** LOINC "Status" — the code of the nested observation that states a clinical status. */
const STATUS_OBSERVATION = '33999-4';

/** The first `observation` under `entry` (the concern's subject observation). */
function mainObservation(entry: XMLElement): XMLElement | undefined {
  return descendants(entry, 'observation')[0];
}

/** The clinical status: the nested status observation's display, else `statusCode/@code`; lower case. */
function status(act: XMLElement | undefined, observation: XMLElement | undefined): string | undefined {
  const statusObs = descendants(observation, 'observation').find((o) => child(o, 'code')?.attributes.code === STATUS_OBSERVATION);
  const value = child(statusObs, 'value')?.attributes.displayName ?? child(act, 'statusCode')?.attributes.code;
  return value?.toLowerCase();
}

function low(el: XMLElement | undefined): string | undefined {
  return readTime(child(el, 'effectiveTime', 'low'));
}

/**
 * The problems of a problem list section (LOINC 11450-4): one per `entry`, coded from the
 * observation's `value`, named from the narrative it references.
 */
export function readProblems(section: XMLElement, ids: ReadonlyMap<string, string>): CDAProblem[] {
  return children(section, 'entry').flatMap((entry) => {
    const act = children(entry)[0];
    const obs = mainObservation(entry);
    if (!obs) return [];
    const value = child(obs, 'value');
    const text = referencedText(value, ids) ?? referencedText(child(obs, 'text'), ids);
    const problem: CDAProblem = {
      id: readId(child(obs, 'id')) ?? readId(child(act, 'id')),
      code: value?.attributes.code ? readCode(value, text) : undefined,
      text,
      status: status(act, obs),
      onset: low(obs) ?? low(act),
      abatement: readTime(child(obs, 'effectiveTime', 'high')),
    };
    return [prune(problem)];
  });
}

/** The medications of a medications section (LOINC 10160-0): one per `substanceAdministration` entry. */
export function readMedications(section: XMLElement, ids: ReadonlyMap<string, string>): CDAMedication[] {
  return children(section, 'entry').flatMap((entry) => {
    const sa = child(entry, 'substanceAdministration');
    if (!sa) return [];
    const material = child(sa, 'consumable', 'manufacturedProduct', 'manufacturedMaterial');
    const codeEl = child(material, 'code');
    const name = referencedText(codeEl, ids) ?? referencedText(child(material, 'name'), ids);
    const period = children(sa, 'effectiveTime').find((e) => child(e, 'low') || child(e, 'high'));
    const dose = child(sa, 'doseQuantity');
    const doseValue = Number(dose?.attributes.value);
    const medication: CDAMedication = {
      id: readId(child(sa, 'id')),
      code: readCode(codeEl, name),
      text: referencedText(child(sa, 'text'), ids),
      status: child(sa, 'statusCode')?.attributes.code?.toLowerCase(),
      start: readTime(child(period, 'low')),
      end: readTime(child(period, 'high')),
      dose: dose && Number.isFinite(doseValue) ? prune({ value: doseValue, unit: dose.attributes.unit }) : undefined,
      route: readCode(child(sa, 'routeCode')),
    };
    return [prune(medication)];
  });
}

/**
 * The allergies of an allergies section (LOINC 48765-2): the allergen from the participant's
 * `playingEntity`, reactions from `MFST` relationships, severity from the `SEV` observation.
 */
export function readAllergies(section: XMLElement, ids: ReadonlyMap<string, string>): CDAAllergy[] {
  return children(section, 'entry').flatMap((entry) => {
    const act = children(entry)[0];
    const obs = mainObservation(entry);
    if (!obs) return [];
    const entity = child(obs, 'participant', 'participantRole', 'playingEntity');
    const entityCode = child(entity, 'code');
    const allergenName = referencedText(child(entity, 'name'), ids) ?? referencedText(entityCode, ids);
    const reactions = children(obs, 'entryRelationship')
      .filter((r) => r.attributes.typeCode === 'MFST')
      .flatMap((r) => readCode(child(r, 'observation', 'value'), referencedText(child(r, 'observation', 'value'), ids)) ?? []);
    const severityObs = descendants(obs, 'observation').find((o) => child(o, 'code')?.attributes.code === 'SEV');
    const allergy: CDAAllergy = {
      id: readId(child(obs, 'id')) ?? readId(child(act, 'id')),
      allergen: readCode(entityCode, allergenName) ?? readCode(child(obs, 'value')),
      text: referencedText(child(obs, 'text'), ids),
      category: readCode(child(obs, 'code')),
      status: status(act, obs),
      onset: low(obs) ?? low(act),
      reactions,
      severity: readCode(child(severityObs, 'value')),
    };
    return [prune(allergy)];
  });
}

/** Drops the keys whose value is `undefined`, so that results compare and print cleanly. */
function prune<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
