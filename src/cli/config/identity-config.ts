/**
 * The `identity` setting of `fhirgate.json`: the gateway's `identity` option (identifier systems that
 * link patients across sources, the sources believed for each, the cache time), checked by the
 * gateway's own validator and then against the file's sources.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import { checkIdentityOptions, type IdentityOptions } from '../../gateway/identity/index.js';
import { configError } from './checks.js';

/** Checks `identity` as `new AsyncFHIRGateway({ identity })` does; its message names the setting (`identity.sytems …`). */
export function checkIdentityConfig(value: unknown, path: string): IdentityOptions | undefined {
  if (value === undefined) return undefined;
  try {
    checkIdentityOptions(value, path);
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) throw new FhirgateError('ERR_CONFIG', err.message);
    throw err;
  }
  return Object.freeze(value as IdentityOptions);
}

/** Refuses `identity.authorities` naming a source that `sources` does not define: a typo must not leave a system unbelieved. */
export function checkAuthoritySources(identity: IdentityOptions | undefined, sources: ReadonlyMap<string, string>): void {
  for (const [system, names] of Object.entries(identity?.authorities ?? {})) {
    const missing = names.find((name) => !sources.has(name));
    if (missing !== undefined) throw configError(`identity.authorities[${JSON.stringify(system)}]`, `names a source that "sources" does not define (${JSON.stringify(missing.slice(0, 100))})`);
  }
}
