/**
 * The `User-Agent` fhirgate sends on every outgoing request, built once from package.json.
 * @module
 */
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };

/**
 * `fhirgate/<version>`, the value of the `User-Agent` header of every outgoing request.
 *
 * @example
 * ```ts
 * console.log(USER_AGENT); // "fhirgate/0.1.0"
 * ```
 */
export const USER_AGENT = `fhirgate/${typeof manifest.version === 'string' ? manifest.version : '0.0.0'}`;
