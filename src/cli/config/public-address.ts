/**
 * The config settings that say where callers reach the host and where CDS prefetch may go: `publicUrl`,
 * `trustProxy`'s `allowedHosts` and `cds.fhirServers`. Each runs the library's own check (so the file
 * accepts exactly what the options do) and turns its `TypeError` into `ERR_CONFIG` naming the path,
 * never the value.
 * @module
 */
import { FHIRServerAllowlist } from '../../cds/fhir-server-allowlist.js';
import { checkAllowedHosts } from '../../host/public-origin.js';
import { checkPublicUrl } from '../../lib/public-url.js';
import { configError } from './checks.js';

function underPath<T>(path: string, problem: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof TypeError) throw configError(path, problem);
    throw error;
  }
}

/** `publicUrl` (or `--public-url`): an absolute http(s) URL without credentials, query or fragment, or `undefined`. */
export function optionalPublicUrl(value: unknown, path: string): string | undefined {
  return underPath(path, 'must be an absolute http(s) URL without credentials, query or fragment', () => checkPublicUrl(value, path));
}

/**
 * `allowedHosts`: the `Host` / `X-Forwarded-Host` values a trusted proxy may send (`api.example.org`,
 * `api.example.org:8443`), or `undefined`.
 */
export function optionalAllowedHosts(value: unknown, path: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  underPath(path, 'must be an array of host names or host:port values', () => checkAllowedHosts(value));
  return Object.freeze([...(value as string[])]);
}

/**
 * `cds.fhirServers`: the FHIR server base URLs CDS prefetch may read from, or `undefined` (public
 * addresses only).
 */
export function optionalFHIRServers(value: unknown, path: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  underPath(path, 'must be an array of absolute http(s) base URLs without credentials, query or fragment', () => FHIRServerAllowlist.from(value, path));
  return Object.freeze([...(value as string[])]);
}
