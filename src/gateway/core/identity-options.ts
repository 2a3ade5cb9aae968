/**
 * The gateway's `identity` option: which identifier systems link one person's records across sources,
 * which sources are believed for each system, and how long a resolution is cached.
 * @module
 */
import { checkObject, numberOption, onlyKnownKeys } from '../../lib/options.js';

/**
 * The `identity` option of `new AsyncFHIRGateway({ identity })` and of `fhirgate.json`: the identifier
 * systems that link one patient's records across sources (exact system and value, never names or birth
 * dates), the sources believed for each system, and how long a resolution is cached.
 *
 * @example
 * ```ts
 * const identity: IdentityOptions = {
 *   systems: ['http://hospital.example.org/mrn', 'urn:oid:2.16.840.1.113883.4.1'],
 *   authorities: { 'http://hospital.example.org/mrn': ['ehr', 'lab'] },
 *   ttlSeconds: 300,
 * };
 * ```
 */
export interface IdentityOptions {
  /** The identifier systems that link patients: absolute URIs (`http(s)://…`, `urn:oid:…`, `urn:uuid:…`), at least one. */
  systems: readonly string[];
  /**
   * Per system (one of `systems`), the only sources believed for it: a source not listed is never asked
   * for that system, and a patient's identifier of that system read from it is ignored. A system not
   * listed here is believed from every source. Default: every source for every system.
   */
  authorities?: Readonly<Record<string, readonly string[]>>;
  /** Seconds a resolution is cached (in this process, and in the gateway's `tokenStore` when one is set). Default 300; 0 caches nothing. */
  ttlSeconds?: number;
}

/** The identity settings after validation. */
export interface IdentitySettings {
  readonly systems: readonly string[];
  /** System → the sources believed for it; a system without an entry is believed from every source. */
  readonly authorities: ReadonlyMap<string, readonly string[]>;
  /** Milliseconds a resolution with no ambiguous or failed source is cached. */
  readonly ttlMs: number;
}

/**
 * Defaults of the `identity` option: a resolution is cached 300 s; one with an ambiguous source at most
 * 10 s (the sources' data may be fixed soon); one with a failed source is never cached.
 *
 * @example
 * ```ts
 * IDENTITY_DEFAULTS.ttlSeconds; // 300
 * ```
 */
export const IDENTITY_DEFAULTS = Object.freeze({ ttlSeconds: 300, ambiguousTtlSeconds: 10 });

const KEYS = ['systems', 'authorities', 'ttlSeconds'] as const;

/** Longest cache time: a day, so that a typo in minutes-for-seconds is caught. */
const MAX_TTL_SECONDS = 86_400;

/** An absolute URI with a scheme (`http:`, `https:`, `urn:`), no spaces, and no `|` (it separates system from value). */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s|]+$/;

/**
 * Validates and copies the `identity` option once: `TypeError`/`RangeError` naming the setting
 * (`options.identity.sytems is not an option; did you mean \`systems\`?`). Whether the authorities are
 * registered sources is checked when a patient is resolved (sources may be added after construction).
 */
export function checkIdentityOptions(value: unknown, name: string): IdentitySettings {
  checkObject(value, name);
  onlyKnownKeys(value, KEYS, name);
  const options = value as Partial<IdentityOptions>;
  const { systems } = options;
  if (!Array.isArray(systems) || systems.length === 0) throw new TypeError(`${name}.systems must be a non-empty array of identifier system URIs`);
  systems.forEach((system: unknown, i) => {
    if (typeof system !== 'string' || !ABSOLUTE_URI.test(system)) throw new TypeError(`${name}.systems[${i}] must be an absolute URI (http://…, urn:oid:…) without spaces or "|"`);
    if (system.startsWith('urn:oid:') && !/^urn:oid:[0-2](\.(0|[1-9][0-9]*))+$/.test(system)) throw new TypeError(`${name}.systems[${i}] must be urn:oid: followed by a dotted OID`);
  });
  if (new Set(systems).size !== systems.length) throw new TypeError(`${name}.systems lists a system twice`);
  const authorities = new Map<string, readonly string[]>();
  if (options.authorities !== undefined) {
    checkObject(options.authorities, `${name}.authorities`);
    if (Array.isArray(options.authorities)) throw new TypeError(`${name}.authorities must be an object of system → source names`);
    for (const [system, sources] of Object.entries(options.authorities)) {
      const path = `${name}.authorities[${JSON.stringify(system)}]`;
      if (!systems.includes(system)) throw new TypeError(`${name}.authorities names a system that is not in ${name}.systems (key ${Object.keys(options.authorities).indexOf(system) + 1})`);
      if (!Array.isArray(sources) || sources.length === 0 || !sources.every((s: unknown) => typeof s === 'string' && s !== '')) {
        throw new TypeError(`${path} must be a non-empty array of source names`);
      }
      authorities.set(system, Object.freeze([...new Set(sources as string[])]));
    }
  }
  const ttlSeconds = numberOption(options.ttlSeconds, `${name}.ttlSeconds`, IDENTITY_DEFAULTS.ttlSeconds, { min: 0, max: MAX_TTL_SECONDS, unit: 'seconds' });
  return Object.freeze({ systems: Object.freeze([...systems] as string[]), authorities, ttlMs: Math.round(ttlSeconds * 1000) });
}

/** True when `source` is believed for identifiers of `system`. */
export function isAuthority(settings: IdentitySettings, system: string, source: string): boolean {
  const listed = settings.authorities.get(system);
  return listed === undefined || listed.includes(source);
}
