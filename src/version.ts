/**
 * The version of the installed fhirgate package, read once from its `package.json`.
 * @module
 */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    // src/version.ts and dist/version.js both sit one level below the package root.
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * The fhirgate version (`0.1.0`): the `User-Agent` of outgoing requests, `software.version` in the
 * gateway's CapabilityStatement, `version` in `/status`. `'0.0.0'` when package.json cannot be read.
 */
export const VERSION: string = readVersion();
