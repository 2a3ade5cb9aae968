/**
 * The check for FHIR logical ids.
 * @module
 */

/**
 * The pattern {@link isFHIRId} checks, as text for JSON Schema / OpenAPI `pattern`: the FHIR id regex
 * without the dot segments `.` and `..`.
 */
export const FHIR_ID_PATTERN = '^(?!\\.\\.?$)[A-Za-z0-9\\-.]{1,64}$';

const FHIR_ID = new RegExp(FHIR_ID_PATTERN);

/**
 * True when `id` is a FHIR id: 1 to 64 characters, each an ASCII letter, a digit, `-` or `.`
 * (`[A-Za-z0-9\-\.]{1,64}`, FHIR R4B §2.24.0.1), and not `.` or `..`: the regex allows those two, but in
 * a URL path they are dot segments (RFC 3986 §5.2.4) that would leave `[base]/[type]/`, so no server can
 * serve them as ids. Use it before putting an id into a URL path.
 *
 * @example
 * ```ts
 * isFHIRId('example-1.2');  // true
 * isFHIRId('a/b');          // false: a slash would change the URL path
 * isFHIRId('x'.repeat(65)); // false: longer than 64
 * isFHIRId('..');           // false: a dot segment
 * ```
 */
export function isFHIRId(id: unknown): id is string {
  return typeof id === 'string' && FHIR_ID.test(id);
}
