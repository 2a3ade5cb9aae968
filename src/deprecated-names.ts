/**
 * Old names of the main entry, kept for one release after the move to one acronym style (all
 * capitals: `FHIR`, `HTTP`, `JSON`, `CORS`). Each is the same object or type as its new name.
 * @module
 */
import { createJSONLogger } from './host/logger.js';
import type { CORSOptions } from './host/cors.js';
import { isFHIRId } from './fhir/is-fhir-id.js';

/**
 * @deprecated Renamed {@link isFHIRId}; this alias goes in the next release.
 * @example
 * ```ts
 * isFHIRId === isFhirId; // true: the old name is the new one
 * ```
 */
export const isFhirId = isFHIRId;

/**
 * @deprecated Renamed {@link createJSONLogger}; this alias goes in the next release.
 * @example
 * ```ts
 * createJSONLogger === createJsonLogger; // true: the old name is the new one
 * ```
 */
export const createJsonLogger = createJSONLogger;

/** @deprecated Renamed {@link CORSOptions}; this alias goes in the next release. */
export type CorsOptions = CORSOptions;
