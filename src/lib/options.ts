/**
 * The option validators every room uses, with one message format: `<name> must be <what>`, where
 * `<name>` is the option as the caller wrote it (`options.timeoutSeconds`, `options.clients[0].clientId`,
 * `startSandbox: options.port`). A value of the wrong type is a `TypeError`; a number of the right type
 * outside its range (or not whole where a whole number is asked for) is a `RangeError`. `undefined`
 * gives the default.
 *
 * Units, the one rule: the seed's pool options keep their names (`maxConnections`,
 * `maxKeepaliveConnections`, `keepaliveExpiry` in seconds); every other time option says its unit in its
 * name (`…Ms` or `…Seconds`), and the retry back-off is `retryBaseDelayMs` / `maxRetryDelayMs` everywhere.
 * @module
 */

import { nearestName } from './nearest-name.js';

/**
 * The range a number option must be in. `min`/`max` are inclusive, `above` is exclusive (`above: 0`
 * asks for a positive number). Infinity passes only with `infinite: true`; `integer` asks for a safe
 * integer. `unit` names what the number counts (`seconds`, `milliseconds`), for the message.
 */
export interface NumberRange {
  readonly min?: number;
  readonly max?: number;
  readonly above?: number;
  readonly integer?: boolean;
  readonly infinite?: boolean;
  readonly unit?: string;
}

/**
 * The text after "must be" for a number in `range`: `an integer from 0 to 65535`, `a finite number of
 * seconds >= 0`, `a number > 0`.
 */
export function describeRange(range: NumberRange): string {
  const kind = range.integer === true ? 'an integer' : range.infinite === true ? 'a number' : 'a finite number';
  const unit = range.unit === undefined ? '' : ` of ${range.unit}`;
  const { min, max, above } = range;
  const bounds =
    min !== undefined && max !== undefined ? ` from ${min} to ${max}` : min !== undefined ? ` >= ${min}` : above !== undefined ? ` > ${above}` : max !== undefined ? ` <= ${max}` : '';
  return `${kind}${unit}${bounds}`;
}

/**
 * Checks a number option: `fallback` when `undefined`, a `TypeError` when it is not a number (or is
 * NaN), a `RangeError` when it is outside `range`.
 */
export function numberOption(value: unknown, name: string, fallback: number, range: NumberRange = {}): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) throw new TypeError(`${name} must be a number${range.unit === undefined ? '' : ` of ${range.unit}`}`);
  const { min, max, above } = range;
  const whole = range.integer !== true || Number.isSafeInteger(value);
  const finite = range.infinite === true || Number.isFinite(value);
  const inside = (min === undefined || value >= min) && (max === undefined || value <= max) && (above === undefined || value > above);
  if (!whole || !finite || !inside) throw new RangeError(`${name} must be ${describeRange(range)}`);
  return value;
}

/** Checks a boolean option: `fallback` when `undefined`, else a `TypeError` unless it is a boolean. */
export function booleanOption(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean`);
  return value;
}

/**
 * Checks a string option: `fallback` when `undefined`, else a `TypeError` unless it is a string (a
 * non-empty one with `nonEmpty`).
 */
export function stringOption(value: unknown, name: string, fallback: string, nonEmpty = false): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || (nonEmpty && value === '')) throw new TypeError(`${name} must be a ${nonEmpty ? 'non-empty ' : ''}string`);
  return value;
}

/** Throws a `TypeError` unless `value` is an object (not `null`); `name` names it (`options`). */
export function checkObject(value: unknown, name: string): asserts value is object {
  if (typeof value !== 'object' || value === null) throw new TypeError(`${name} must be an object`);
}

/**
 * The first own key of `value` that is not in `known`: its 1-based position, and the known name it is an
 * obvious typo of (`patinet` → `patient`), if any. A message that must not echo a possible secret quotes
 * `key` only when `near` is set (see `nearestName`).
 */
export function unknownKey(value: object, known: readonly string[]): { key: string; position: number; near: string | undefined } | undefined {
  const keys = Object.keys(value);
  const index = keys.findIndex((key) => !known.includes(key));
  if (index < 0) return undefined;
  const key = keys[index]!;
  return { key, position: index + 1, near: nearestName(key, known) };
}

/**
 * Refuses a key of an option object that is not in `known`, so that a typo fails instead of being
 * ignored: a `TypeError` `options.callers[0].patinet is not an option; did you mean \`patient\`?`, or,
 * for a key that is no near miss, `options.callers[0] has an unknown option (key 3); …` with the
 * known names.
 */
export function onlyKnownKeys(value: object, known: readonly string[], name: string): void {
  const found = unknownKey(value, known);
  if (found === undefined) return;
  if (found.near !== undefined) throw new TypeError(`${name}.${found.key} is not an option; did you mean \`${found.near}\`?`);
  throw new TypeError(`${name} has an unknown option (key ${found.position}); the options are ${known.join(', ')}`);
}

/** Checks a signal option: `undefined` stays `undefined`, else a `TypeError` unless it is an `AbortSignal`. */
export function signalOption(value: unknown, name: string): AbortSignal | undefined {
  if (value !== undefined && !(value instanceof AbortSignal)) throw new TypeError(`${name} must be an AbortSignal`);
  return value;
}
