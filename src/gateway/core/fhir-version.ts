/**
 * The FHIR version a gateway reports to its clients (`CapabilityStatement.fhirVersion` at
 * `GET <prefix>/metadata`), and its one-time check.
 * @module
 */

/**
 * What a gateway reports unless told otherwise: `4.0.1`, FHIR R4, what the sources it fronts speak.
 * (The TypeScript models are generated from R4B, 4.3.0, which keeps R4's REST API and JSON;
 * docs/gateway.md lists the differences.)
 */
export const DEFAULT_FHIR_VERSION = '4.0.1';

/** A FHIR `FHIRVersion` code: `major.minor.patch` with an optional label (`4.0.1`, `4.3.0`, `5.0.0-ballot`). */
const FHIR_VERSION = /^\d{1,3}\.\d{1,3}\.\d{1,3}(?:-[A-Za-z0-9.]{1,32})?$/;

/** Checks the `fhirVersion` option once: a `FHIRVersion` code string, or `undefined` for the default. */
export function checkFHIRVersion(value: unknown): string {
  if (value === undefined) return DEFAULT_FHIR_VERSION;
  if (typeof value !== 'string') throw new TypeError('options.fhirVersion must be a string such as 4.0.1');
  if (!FHIR_VERSION.test(value)) throw new RangeError('options.fhirVersion must be a FHIR version code such as 4.0.1 or 4.3.0');
  return value;
}
