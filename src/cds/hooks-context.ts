/**
 * The context of the hooks fhirgate knows (CDS Hooks library: patient-view, order-select, order-sign,
 * encounter-start, encounter-discharge, appointment-book), checked field by field. Other hook names are
 * allowed; their context only has to be an object.
 * @module
 */
import { isFHIRId } from '../fhir/index.js';
import { checker } from './json-checks.js';
import type { JSONObject } from './types.js';

type FieldKind = 'id' | 'user' | 'references' | 'bundle';

interface FieldSpec {
  readonly kind: FieldKind;
  readonly required: boolean;
}

const ALL_USERS = ['Practitioner', 'PractitionerRole', 'Patient', 'RelatedPerson'] as const;
const CLINICIANS = ['Practitioner', 'PractitionerRole'] as const;

interface HookSpec {
  readonly userTypes: readonly string[];
  readonly fields: Readonly<Record<string, FieldSpec>>;
}

const req = (kind: FieldKind): FieldSpec => ({ kind, required: true });
const opt = (kind: FieldKind): FieldSpec => ({ kind, required: false });

const KNOWN_HOOKS: Readonly<Record<string, HookSpec>> = Object.freeze({
  'patient-view': { userTypes: ALL_USERS, fields: { userId: req('user'), patientId: req('id'), encounterId: opt('id') } },
  'order-select': {
    userTypes: CLINICIANS,
    fields: { userId: req('user'), patientId: req('id'), encounterId: opt('id'), selections: req('references'), draftOrders: req('bundle') },
  },
  'order-sign': {
    userTypes: CLINICIANS,
    fields: { userId: req('user'), patientId: req('id'), encounterId: opt('id'), draftOrders: req('bundle') },
  },
  'encounter-start': { userTypes: CLINICIANS, fields: { userId: req('user'), patientId: req('id'), encounterId: req('id') } },
  'encounter-discharge': { userTypes: CLINICIANS, fields: { userId: req('user'), patientId: req('id'), encounterId: req('id') } },
  'appointment-book': {
    userTypes: ALL_USERS,
    fields: { userId: req('user'), patientId: req('id'), encounterId: opt('id'), appointments: req('bundle') },
  },
});

/** `Type/id`: the type part of a relative reference whose id is a FHIR id (never `.` or `..`, which prefetch URLs would resolve away). */
const REFERENCE = /^([A-Z][A-Za-z]+)\/([^/]*)$/;

/** The type of a relative reference `Type/id`, or `undefined` when the value is not one. */
function referenceType(value: unknown): string | undefined {
  const match = typeof value === 'string' ? REFERENCE.exec(value) : null;
  return match !== null && isFHIRId(match[2]) ? match[1] : undefined;
}
const check = checker('ERR_CDS_REQUEST', 400);

/** The spec of a known hook; an own-property lookup, so that `constructor` or `toString` is just unknown. */
const specFor = (hook: string): HookSpec | undefined => (Object.hasOwn(KNOWN_HOOKS, hook) ? KNOWN_HOOKS[hook] : undefined);

function checkField(spec: HookSpec, kind: FieldKind, value: unknown, field: string): void {
  switch (kind) {
    case 'id':
      if (!isFHIRId(value)) check.fail(field, 'must be a FHIR id');
      return;
    case 'user': {
      if (!spec.userTypes.includes(referenceType(value) ?? '')) {
        check.fail(field, `must be a reference to a ${spec.userTypes.join(', ')} (Type/id)`);
      }
      return;
    }
    case 'references': {
      const list = check.array(value, field);
      if (list.length === 0) check.fail(field, 'must not be empty');
      list.forEach((item, i) => {
        if (referenceType(item) === undefined) check.fail(`${field}[${i}]`, 'must be a reference (Type/id)');
      });
      return;
    }
    case 'bundle':
      if (!check.isObject(value) || value.resourceType !== 'Bundle') check.fail(field, 'must be a FHIR Bundle');
  }
}

/**
 * Checks `context` against the hook's definition when the hook is a known one. Throws
 * `CDSError('ERR_CDS_REQUEST', ..., 400, 'context.<field>')`.
 */
export function validateContext(hook: string, context: JSONObject): void {
  const spec = specFor(hook);
  if (spec === undefined) return;
  for (const [name, field] of Object.entries(spec.fields)) {
    const value = context[name];
    if (value === undefined) {
      if (field.required) check.fail(`context.${name}`, `is required by the ${hook} hook`);
      continue;
    }
    checkField(spec, field.kind, value, `context.${name}`);
  }
}

/**
 * The context fields a prefetch template may name for a known hook (its primitive ones), or `undefined`
 * for a hook fhirgate does not know (any root-level name is then allowed).
 */
export function primitiveContextFields(hook: string): readonly string[] | undefined {
  const spec = specFor(hook);
  if (spec === undefined) return undefined;
  return Object.entries(spec.fields)
    .filter(([, f]) => f.kind === 'id' || f.kind === 'user')
    .map(([name]) => name);
}
