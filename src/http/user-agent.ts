/**
 * The `User-Agent` fhirgate sends on every outgoing request, built once from the package version.
 * @module
 */
import { VERSION } from '../version.js';

/** `fhirgate/<version>`, the value of the `User-Agent` header of every outgoing request. */
export const USER_AGENT = `fhirgate/${VERSION}`;
