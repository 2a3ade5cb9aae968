/**
 * The facade's settings in `fhirgate.json`: `callers` (API keys or issuers, each with its policy) and
 * `facade` (on/off, the federated name, per-source limits, the audit sink, page tokens). Checked by the
 * facade's own option checks, so that the file and the library refuse the same things; the messages
 * become `ERR_CONFIG` under the setting's path and never quote a value.
 * @module
 */
import { RESERVED_NAMES } from '../../facade/index.js';
import { checkCallerList, checkFacadeOptions, checkIdentityCallers, OPTION_KEYS } from '../../facade/options.js';
import type { IdentityOptions } from '../../gateway/index.js';
import type { FHIRFacadeOptions } from '../../facade/index.js';
import { nearestName } from '../../lib/nearest-name.js';
import { configError, object, onlyKeys, optionalBoolean } from './checks.js';

/** The `facade` section after checks (callers apart, at the top level). */
export interface FacadeConfig {
  /** `false` turns the facade off. Default on. */
  readonly enabled: boolean;
  readonly options: Omit<FHIRFacadeOptions, 'callers' | 'openReadOnly'>;
}

/** The section's settings: `enabled`, and the facade's options but those set elsewhere (callers at the top level; the others by `serve`). */
export const FACADE_SETTINGS: readonly string[] = ['enabled', ...OPTION_KEYS.options.filter((key) => !['callers', 'openReadOnly', 'limitStore', 'proxy'].includes(key))];

/**
 * Runs the facade's option checks, named from `path` on (`callers[0].apiKey`), and makes their messages
 * `ERR_CONFIG` under the setting's path: `callers[0].apiKey must be …` becomes `callers[0].apiKey: must
 * be …`, `callers[1] (portal) binds …` becomes `callers[1] (portal): binds …`.
 */
function asConfig<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    const [, path = '', who = '', problem = error.message] = /^(\S+?):?( \([^)]*\))? (?:is )?(.*)$/s.exec(error.message) ?? [];
    throw configError(`${path}${who}`, problem);
  }
}

/**
 * Refuses callers bound by identifier when the file has no `identity` setting, or by a system it does
 * not list: such a caller would be served nothing (or the wrong person), so `serve` does not start.
 */
export function checkCallerIdentities(callers: FHIRFacadeOptions['callers'], identity: IdentityOptions | undefined): void {
  asConfig(() => checkIdentityCallers(callers ?? [], identity?.systems, 'callers'));
}

/** Checks top-level `callers`. */
export function checkCallers(value: unknown, path: string): FHIRFacadeOptions['callers'] {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw configError(path, 'must be a list of callers ({ name, apiKey, … } or { issuer, jwks | jwksUrl, audience, … })');
  return asConfig(() => checkCallerList(value, path));
}

/** Checks the `facade` section. */
export function checkFacade(value: unknown, path: string): FacadeConfig {
  const record = value === undefined ? {} : object(value, path);
  onlyKeys(record, FACADE_SETTINGS, path);
  const { enabled, ...options } = record;
  asConfig(() => checkFacadeOptions(options as FHIRFacadeOptions, path));
  return Object.freeze({ enabled: optionalBoolean(enabled, `${path}.enabled`) ?? true, options: Object.freeze(options) as FacadeConfig['options'] });
}

/**
 * What `serve` warns about at start in the callers' settings that are allowed but narrow or loosen what
 * is served: an issuer whose patient-bound tokens no source serves (no `patientSource`), an issuer whose
 * tokens' audience is not checked (`acceptAnyAudience`).
 */
export function callerWarnings(callers: FHIRFacadeOptions['callers']): string[] {
  const warnings: string[] = [];
  for (const caller of callers ?? []) {
    if (!('issuer' in caller)) continue;
    if (caller.patientSource === undefined && caller.patient === undefined && /(^|\s)patient\//.test(caller.scopes)) {
      warnings.push(`issuer ${caller.issuer}: tokens with a patient claim are served on no source; set patientSource to the source whose local id the claim is`);
    }
    if (caller.acceptAnyAudience === true) warnings.push(`issuer ${caller.issuer}: acceptAnyAudience is on, so tokens it made for any other service are accepted too (RFC 8725 §3.9)`);
  }
  return warnings;
}

/** Interfaces that reach this machine only. */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * How `serve` runs the facade: off (`facade.enabled: false`), with the configured callers, open for
 * read and search on loopback when no caller is configured, or serving nothing beyond loopback then.
 */
export function facadeMode(facade: FacadeConfig, callers: FHIRFacadeOptions['callers'], host: string | undefined): 'off' | 'callers' | 'open-read-only' | 'closed' {
  if (!facade.enabled) return 'off';
  if ((callers ?? []).length > 0) return 'callers';
  return LOOPBACK.test(host ?? '127.0.0.1') ? 'open-read-only' : 'closed';
}

/**
 * Refuses source names the facade cannot serve under the prefix: the gateway's own routes and the
 * federated base's name.
 */
export function checkFacadeNames(sources: Iterable<string>, federatedName: string): void {
  for (const name of sources) {
    if (RESERVED_NAMES.includes(name) || name === federatedName) {
      throw configError(`sources.${name}`, `the name is taken under the gateway's prefix (${[...RESERVED_NAMES, federatedName].join(', ')}); rename the source`);
    }
  }
}

/**
 * Refuses a caller whose `sources` list or `patientSource` names a source the config does not have: a
 * typo would serve that caller nothing (fail closed) without saying why, so it stops `serve` instead.
 */
export function checkCallerSources(callers: FHIRFacadeOptions['callers'], sources: readonly string[]): void {
  (callers ?? []).forEach((caller, i) => {
    const named = [...(Array.isArray(caller.sources) ? caller.sources.map((name, j) => [`callers[${i}].sources[${j}]`, name] as const) : []),
      ...('patientSource' in caller && caller.patientSource !== undefined ? [[`callers[${i}].patientSource`, caller.patientSource] as const] : [])];
    for (const [path, name] of named) {
      if (sources.includes(name)) continue;
      const near = nearestName(name, sources);
      throw configError(path, `names no configured source${near === undefined ? '' : `; did you mean \`${near}\`?`} (sources: ${sources.join(', ')})`);
    }
  });
}
