/**
 * Mount prefixes and the paths under them.
 * @module
 */
import { splitPath } from './router.js';

const SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=@-]+$/;

/**
 * Checks and normalizes a mount prefix: it starts with `/`, has no parameter, query or empty segment;
 * a trailing slash is dropped and `/` becomes `''` (the root).
 */
export function normalizePrefix(path: unknown): string {
  if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError('options.path must be a string starting with "/"');
  const segments = splitPath(path);
  if (!segments.every((s) => SEGMENT.test(s))) throw new TypeError(`options.path: "${path}" has an empty, parameter or invalid segment`);
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
}

/**
 * A route path under a prefix: `joinPath('/cds', '/cds-services/:id')`; `''` as the route path is the
 * prefix itself, and both empty is `/`.
 */
export function joinPath(prefix: string, path: string): string {
  const joined = `${prefix}${path === '' || path.startsWith('/') ? path : `/${path}`}`;
  return joined === '' ? '/' : joined;
}

/**
 * True when two route paths are the same pattern, whatever their parameter names and style
 * (`/a/:id` and `/a/{x}/` are).
 */
export function samePattern(a: string, b: string): boolean {
  const shape = (p: string) => splitPath(p).map((s) => (s.startsWith(':') || /^\{.+\}$/.test(s) ? '{}' : s)).join('/');
  return shape(a) === shape(b);
}
