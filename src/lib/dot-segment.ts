/**
 * Whether a path holds a dot segment: `.` or `..`, written or as `%2e` in either case, which the URL
 * parser resolves (RFC 3986 §5.2.4) where it leaves every other segment as written. A path without one
 * can be put on a base, or moved to another, by concatenation and still read as the parser would read it.
 * @module
 */

const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:[/?]|$)/i;

/** True when `path` (a path, optionally with its query) holds a dot segment the URL parser would resolve. */
export function holdsDotSegment(path: string): boolean {
  return DOT_SEGMENT.test(path);
}
