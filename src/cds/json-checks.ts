/**
 * Small checks for JSON values that throw a {@link CDSError} naming the field. Shared by request, context,
 * card and feedback validation.
 * @module
 */
import type { ErrorCode } from '../errors.js';
import { isJSONObject } from '../lib/json-object.js';
import { CDSError } from './cds-error.js';
import type { JSONObject } from './types.js';

/** A UUID in its canonical text form (any version). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validation helpers bound to one error code and status (`ERR_CDS_REQUEST`/400 for requests,
 * `ERR_CDS_CARD`/500 for handler answers).
 */
export interface Checker {
  fail(field: string, problem: string): never;
  isObject(value: unknown): value is JSONObject;
  object(value: unknown, field: string): JSONObject;
  string(value: unknown, field: string): string;
  optionalString(value: unknown, field: string): string | undefined;
  array(value: unknown, field: string): unknown[];
  oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T;
}

/** Builds a {@link Checker} whose failures carry `code` and `status`. */
export function checker(code: ErrorCode, status: number): Checker {
  const fail = (field: string, problem: string): never => {
    throw new CDSError(code, `${field} ${problem}`, status, field);
  };
  const string = (value: unknown, field: string): string => {
    if (typeof value !== 'string' || value === '') return fail(field, 'must be a non-empty string');
    return value;
  };
  return {
    fail,
    isObject: isJSONObject,
    object: (value, field) => (isJSONObject(value) ? value : fail(field, 'must be an object')),
    string,
    optionalString: (value, field) => (value === undefined ? undefined : string(value, field)),
    array: (value, field) => (Array.isArray(value) ? value : fail(field, 'must be an array')),
    oneOf: (value, field, allowed) =>
      typeof value === 'string' && (allowed as readonly string[]).includes(value)
        ? (value as (typeof allowed)[number])
        : fail(field, `must be one of ${allowed.join(', ')}`),
  };
}
