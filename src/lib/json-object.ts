/**
 * Telling a JSON object from the other JSON values.
 * @module
 */

/**
 * Whether `value` is an object that is neither `null` nor an array: what `JSON.parse` gives for `{…}`
 * (its prototype is not looked at, so an object of a class passes too). Parsed bodies, option values
 * and their members are checked with it before their members are read.
 */
export function isJSONObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
