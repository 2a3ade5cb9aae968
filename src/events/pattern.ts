/**
 * Event name patterns: an exact name, or a prefix followed by one trailing `*`.
 * @module
 */

/** Tests whether an event name matches a compiled pattern. */
export type PatternMatcher = (eventName: string) => boolean;

/**
 * Checks `pattern` and returns its matcher. A pattern is an exact event name (`fhir.patient.read`), or
 * text followed by one trailing `*` that matches every name starting with that text (`cdshooks.*`
 * matches `cdshooks.patient-view` but not `cdshooks`, which lacks the dot); `*` alone matches every
 * name. Matching is case-sensitive.
 *
 * @throws TypeError naming `pattern` when it is not a string, is empty, holds white space, or has a `*`
 * anywhere but at the end (`a*b`, `**`, `*.read`).
 */
export function compilePattern(pattern: unknown): PatternMatcher {
  if (typeof pattern !== 'string') throw new TypeError('"pattern" must be a string');
  if (pattern === '' || /\s/.test(pattern)) {
    throw new TypeError(`"pattern" must be a non-empty event name without white space, got ${JSON.stringify(pattern)}`);
  }
  const star = pattern.indexOf('*');
  if (star === -1) return (eventName) => eventName === pattern;
  if (star !== pattern.length - 1) {
    throw new TypeError(`"pattern" may hold one "*", only at its end (like "cdshooks.*"), got ${JSON.stringify(pattern)}`);
  }
  const prefix = pattern.slice(0, -1);
  return (eventName) => eventName.startsWith(prefix);
}
