/**
 * Telling a promise from a plain value without awaiting it.
 * @module
 */

/** Whether `value` is a promise or another thenable: the host and the gateway answer a value in the same tick and only chain on a real promise. */
export function isThenable<T = unknown>(value: unknown): value is PromiseLike<T> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
