/**
 * Old type names of `fhirgate/cds`, kept for one release after the move to one acronym style (all
 * capitals: `FHIR`, `JSON`).
 * @module
 */
import type { FHIRAuthorization, JSONObject } from './types.js';

/**
 * @deprecated Renamed {@link FHIRAuthorization}; this alias goes in the next release.
 * @example
 * ```ts
 * const auth: FhirAuthorization = {} as FHIRAuthorization; // the old name is the new type
 * ```
 */
export type FhirAuthorization = FHIRAuthorization;

/** @deprecated Renamed {@link JSONObject}; this alias goes in the next release. */
export type JsonObject = JSONObject;
