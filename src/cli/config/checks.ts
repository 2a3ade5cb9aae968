/**
 * The small checks the config validation is built from. Each names the path of the value it checks in
 * its `ERR_CONFIG` message and never quotes the value (it may be a secret).
 * @module
 */
import { FhirgateError } from '../../errors.js';
import { RESOURCE_TYPES } from '../../fhir/index.js';
import { R4_ONLY_RESOURCE_TYPES } from '../../fhir/is-resource-type.js';
import { isJSONObject } from '../../lib/json-object.js';
import { nearestName } from '../../lib/nearest-name.js';
import { unknownKey } from '../../lib/options.js';

/**
 * The error of an option value that is not a resource type. The value is quoted only when it is a near
 * miss of a type name (an argument may hold anything, a secret included); else it is named by
 * `position` in the option's list, if any. `r4Only`: the types R4B dropped count too.
 */
export function notAResourceType(option: string, typed: string, where: { position?: number; r4Only?: boolean } = {}): FhirgateError {
  const what = where.r4Only === true ? 'a FHIR R4 or R4B resource type' : 'a FHIR R4 resource type';
  const near = nearestName(typed, where.r4Only === true ? [...RESOURCE_TYPES, ...R4_ONLY_RESOURCE_TYPES] : RESOURCE_TYPES);
  if (near !== undefined) return configError(option, `${JSON.stringify(typed)} is not ${what} (did you mean ${near}?)`);
  return configError(option, `${where.position === undefined ? 'not' : `the type at position ${where.position} is not`} ${what}`);
}

/** The error of a config value: `<path>: <problem>`. */
export function configError(path: string, problem: string): FhirgateError {
  return new FhirgateError('ERR_CONFIG', `${path}: ${problem}`);
}

/** A plain object (not an array, not null), as a record. */
export function object(value: unknown, path: string): Record<string, unknown> {
  if (!isJSONObject(value)) throw configError(path, 'must be an object');
  return value;
}

/** Refuses keys outside `allowed`, with the one it is an obvious typo of: a typo must fail, not be ignored. */
export function onlyKeys(record: Record<string, unknown>, allowed: readonly string[], path: string): void {
  const found = unknownKey(record, allowed);
  if (found === undefined) return;
  const key = found.key.slice(0, 60);
  throw configError(path === '' ? key : `${path}.${key}`, `unknown setting; allowed: ${allowed.join(', ')}${found.near === undefined ? '' : `; did you mean \`${found.near}\`?`}`);
}

/** A non-empty string, or `undefined` when absent. */
export function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw configError(path, 'must be a non-empty string');
  return value;
}

/** A TCP port, 0 to 65535 (a number, or a string of digits after `${PORT}` expansion). */
export function optionalPort(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  const port = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : value;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) throw configError(path, 'must be an integer from 0 to 65535');
  return port;
}

/** A positive number, or `undefined`. */
export function optionalPositive(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw configError(path, 'must be a positive number');
  return value;
}

/** A URL path prefix: starts with `/`, no query, no `..`. */
export function optionalPrefix(value: unknown, path: string): string | undefined {
  const text = optionalString(value, path);
  if (text !== undefined && !/^\/[A-Za-z0-9._~\-/]*$/.test(text)) throw configError(path, 'must be a path such as /fhir (letters, digits, - . _ ~ and /)');
  if (text !== undefined && text.split('/').some((s) => s === '.' || s === '..')) throw configError(path, 'must not hold . or .. segments');
  return text;
}

/** A list of non-empty strings, or `undefined`. */
export function optionalStrings(value: unknown, path: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw configError(path, 'must be an array of strings');
  value.forEach((item, i) => optionalString(item ?? '', `${path}[${i}]`));
  return [...(value as string[])];
}

/** `true`, `false`, or `undefined`. */
export function optionalBoolean(value: unknown, path: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw configError(path, 'must be true or false');
  return value;
}

/** A whole number of milliseconds, `min` (default 0) or more, or `undefined`. */
export function optionalMilliseconds(value: unknown, path: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) throw configError(path, `must be a whole number of milliseconds, ${min} or more`);
  return value;
}

/**
 * How many worker processes: `'auto'` (one per core) or an integer from 1 to 1024 (a number, or a
 * string of digits from the command line or after `${…}` expansion), or `undefined`.
 */
export function optionalWorkers(value: unknown, path: string): 'auto' | number | undefined {
  if (value === undefined || value === 'auto') return value;
  const count = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 1024) throw configError(path, 'must be "auto" or an integer from 1 to 1024');
  return count;
}
