/**
 * Reads one numeric option, falling back to its default, and throws a `RangeError` naming it when it is
 * not a finite number at or above its minimum.
 * @module
 */

/**
 * @example
 * ```ts
 * const limit = numberOption(options.bodyLimit, 'bodyLimit', 1024 * 1024, 1);
 * ```
 */
export function numberOption(value: unknown, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new RangeError(`${name} must be a finite number >= ${min}`);
  }
  return value;
}
