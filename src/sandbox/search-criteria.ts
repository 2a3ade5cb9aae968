/**
 * Turns one search parameter (`name[:modifier]=value[,value...]`) into a predicate on resources.
 * Commas OR within a value; the caller ANDs repeated parameters.
 * @module
 */
import { FhirgateError } from '../errors.js';
import { DATE_PREFIXES, dateRange, matchesDate, type DatePrefix } from './date-range.js';
import type { Fields, SearchParamDef, Token } from './search-params.js';

/** A test a resource passes or fails. */
export type Predicate = (resource: Fields) => boolean;

const MODIFIERS: Readonly<Record<SearchParamDef['kind'], readonly string[]>> = {
  string: ['', 'exact', 'contains', 'missing'],
  token: ['', 'not', 'missing'],
  date: ['', 'missing'],
  reference: ['', 'missing'],
};

/** A 400 answer (`ERR_INVALID_SEARCH`) for a search the sandbox cannot run. */
export function badSearch(message: string): FhirgateError {
  return new FhirgateError('ERR_INVALID_SEARCH', message, { status: 400 });
}

/** Splits on `separator` where it is not escaped with a backslash, and removes the escapes. */
function splitEscaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length) current += text[++i];
    else if (ch === separator) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** Lower case without diacritics: FHIR string search ignores both. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** `Type/id` from a relative or absolute reference, without any `_history` part. */
function localReference(ref: string): string {
  const parts = ref.replace(/\/_history\/[^/]*$/, '').split('/');
  return parts.slice(-2).join('/');
}

function stringTest(modifier: string, value: string): (v: string) => boolean {
  if (modifier === 'exact') return (v) => v === value;
  const wanted = fold(value);
  return modifier === 'contains' ? (v) => fold(v).includes(wanted) : (v) => fold(v).startsWith(wanted);
}

function tokenTest(value: string): (t: Token) => boolean {
  const parts = splitEscaped(value, '|');
  if (parts.length === 1) return (t) => t.code === parts[0];
  if (parts.length !== 2) throw badSearch(`token "${value}" has more than one "|"`);
  const [system, code] = parts as [string, string];
  if (system === '') return (t) => t.system === undefined && t.code === code;
  return (t) => t.system === system && (code === '' || t.code === code);
}

function referenceTest(def: Extract<SearchParamDef, { kind: 'reference' }>, value: string): (ref: string) => boolean {
  if (value.includes('/')) {
    const wanted = localReference(value);
    return (ref) => localReference(ref) === wanted;
  }
  if (def.target !== undefined) {
    const wanted = `${def.target}/${value}`;
    return (ref) => localReference(ref) === wanted;
  }
  return (ref) => localReference(ref).split('/').at(-1) === value;
}

function dateTest(value: string): (v: string) => boolean {
  const head = value.slice(0, 2);
  const prefix: DatePrefix = (DATE_PREFIXES as readonly string[]).includes(head) ? (head as DatePrefix) : 'eq';
  const range = dateRange(prefix === head ? value.slice(2) : value);
  if (range === undefined) throw badSearch(`"${value}" is not a FHIR date search value`);
  return (v) => {
    const target = dateRange(v);
    return target !== undefined && matchesDate(prefix, range, target);
  };
}

function oneValue(def: SearchParamDef, modifier: string, value: string): Predicate {
  switch (def.kind) {
    case 'string': {
      const test = stringTest(modifier, value);
      return (r) => def.values(r).some(test);
    }
    case 'token': {
      const test = tokenTest(value);
      return (r) => def.values(r).some(test);
    }
    case 'reference': {
      const test = referenceTest(def, value);
      return (r) => def.values(r).some(test);
    }
    case 'date': {
      const test = dateTest(value);
      return (r) => def.values(r).some(test);
    }
  }
}

/** The predicate for one occurrence of a search parameter. */
export function criterion(name: string, def: SearchParamDef, modifier: string, value: string): Predicate {
  if (!MODIFIERS[def.kind].includes(modifier)) {
    throw badSearch(`modifier ":${modifier}" is not supported on search parameter "${name}"`);
  }
  if (modifier === 'missing') {
    if (value !== 'true' && value !== 'false') throw badSearch(`"${name}:missing" takes true or false`);
    const missing = value === 'true';
    return (r) => (def.values(r).length === 0) === missing;
  }
  const alternatives = splitEscaped(value, ',').map((v) => oneValue(def, modifier, v));
  const any: Predicate = (r) => alternatives.some((p) => p(r));
  return modifier === 'not' ? (r) => !any(r) : any;
}

/** A sort key of a parameter: its first value in a comparable form, or undefined when absent. */
export function sortKey(def: SearchParamDef, resource: Fields): string | number | undefined {
  switch (def.kind) {
    case 'date': {
      const first = def.values(resource)[0];
      return first === undefined ? undefined : dateRange(first)?.start;
    }
    case 'token':
      return def.values(resource)[0]?.code;
    default: {
      const first = def.values(resource)[0];
      return first === undefined ? undefined : fold(first);
    }
  }
}
