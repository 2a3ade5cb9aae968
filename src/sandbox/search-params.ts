/**
 * The search parameters the sandbox understands, per resource type, and where each one looks in a
 * resource. Patient has its demographic parameters; every other type gets the usual clinical ones
 * (`patient`, `subject`, `code`, `category`, `status`, `date`, `identifier`). Every type has `_id`
 * and `_lastUpdated`.
 * @module
 */
import type { Resource } from '../fhir/index.js';

/** A coded value: a `system|code` pair (no system for plain codes). */
export interface Token {
  readonly system?: string;
  readonly code: string;
}

/** How a parameter compares, and what it reads from a resource. */
export type SearchParamDef =
  | { readonly kind: 'string' | 'date'; readonly values: (r: Fields) => string[] }
  | { readonly kind: 'token'; readonly values: (r: Fields) => Token[] }
  | {
      readonly kind: 'reference';
      /** The type a bare id refers to (`patient=123` means `Patient/123`). */
      readonly target?: string;
      readonly values: (r: Fields) => string[];
    };

/** A resource seen as loose JSON. */
export type Fields = Readonly<Record<string, unknown>>;

function list(value: unknown): unknown[] {
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

function objects(value: unknown): Fields[] {
  return list(value).filter((v): v is Fields => typeof v === 'object' && v !== null);
}

function strings(value: unknown): string[] {
  return list(value).filter((v): v is string => typeof v === 'string');
}

function codings(value: unknown): Token[] {
  return objects(value).flatMap((cc) => objects(cc.coding))
    .filter((c) => typeof c.code === 'string')
    .map((c) => (typeof c.system === 'string' ? { system: c.system, code: c.code as string } : { code: c.code as string }));
}

function identifiers(value: unknown): Token[] {
  return objects(value).filter((i) => typeof i.value === 'string')
    .map((i) => (typeof i.system === 'string' ? { system: i.system, code: i.value as string } : { code: i.value as string }));
}

function plainCodes(value: unknown): Token[] {
  return list(value).filter((v) => typeof v === 'string' || typeof v === 'boolean').map((v) => ({ code: String(v) }));
}

function references(...fields: string[]): (r: Fields) => string[] {
  return (r) => fields.flatMap((f) => objects(r[f])).flatMap((ref) => strings(ref.reference));
}

/** The first date-like element of a clinical resource: effective[x], onset[x], period, dates. */
function clinicalDates(r: Fields): string[] {
  for (const key of ['effectiveDateTime', 'effectiveInstant', 'onsetDateTime', 'occurrenceDateTime', 'performedDateTime', 'authoredOn', 'recordedDate', 'date', 'issued']) {
    if (typeof r[key] === 'string') return [r[key] as string];
  }
  for (const key of ['effectivePeriod', 'period', 'onsetPeriod', 'performedPeriod']) {
    const start = objects(r[key])[0]?.start;
    if (typeof start === 'string') return [start];
  }
  return [];
}

const names = (r: Fields): Fields[] => objects(r.name);

const COMMON: Readonly<Record<string, SearchParamDef>> = {
  _id: { kind: 'token', values: (r) => plainCodes(r.id) },
  _lastUpdated: { kind: 'date', values: (r) => strings(objects(r.meta)[0]?.lastUpdated) },
};

const PATIENT: Readonly<Record<string, SearchParamDef>> = {
  ...COMMON,
  family: { kind: 'string', values: (r) => names(r).flatMap((n) => strings(n.family)) },
  given: { kind: 'string', values: (r) => names(r).flatMap((n) => strings(n.given)) },
  name: {
    kind: 'string',
    values: (r) => names(r).flatMap((n) => [n.text, n.family, n.given, n.prefix, n.suffix].flatMap(strings)),
  },
  birthdate: { kind: 'date', values: (r) => strings(r.birthDate) },
  gender: { kind: 'token', values: (r) => plainCodes(r.gender) },
  'address-city': { kind: 'string', values: (r) => objects(r.address).flatMap((a) => strings(a.city)) },
  'address-postalcode': { kind: 'string', values: (r) => objects(r.address).flatMap((a) => strings(a.postalCode)) },
  identifier: { kind: 'token', values: (r) => identifiers(r.identifier) },
  active: { kind: 'token', values: (r) => plainCodes(r.active) },
};

const CLINICAL: Readonly<Record<string, SearchParamDef>> = {
  ...COMMON,
  patient: { kind: 'reference', target: 'Patient', values: references('subject', 'patient') },
  subject: { kind: 'reference', values: references('subject') },
  code: { kind: 'token', values: (r) => codings(r.code) },
  category: { kind: 'token', values: (r) => codings(r.category) },
  status: { kind: 'token', values: (r) => plainCodes(r.status) },
  'clinical-status': { kind: 'token', values: (r) => codings(r.clinicalStatus) },
  date: { kind: 'date', values: clinicalDates },
  identifier: { kind: 'token', values: (r) => identifiers(r.identifier) },
};

/** The search parameters of a resource type, by name. */
export function searchParamsFor(type: Resource['resourceType']): Readonly<Record<string, SearchParamDef>> {
  return type === 'Patient' ? PATIENT : CLINICAL;
}
