/**
 * The version of the installed fhirgate package, read once from its `package.json`.
 * @module
 */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    // src/gateway/handlers/ and dist/gateway/handlers/ are both three levels below the package root.
    const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
    const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * The fhirgate version (`software.version` in the CapabilityStatement, `version` in `/status`).
 *
 * @example
 * ```ts
 * console.log(`fhirgate ${PACKAGE_VERSION}`);
 * ```
 */
export const PACKAGE_VERSION: string = readVersion();
