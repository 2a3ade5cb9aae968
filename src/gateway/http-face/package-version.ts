/**
 * The version of the installed fhirgate package, under the name the gateway's HTTP face uses.
 * @module
 */

/** The fhirgate version (`software.version` in the CapabilityStatement, `version` in `/status`). */
export { VERSION as PACKAGE_VERSION } from '../../version.js';
