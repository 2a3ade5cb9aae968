/**
 * The options of `bulkExport`/`bulkExportAll`, checked and copied once.
 * @module
 */
import { isR4OrR4BResourceType, type R4OnlyResourceType } from '../../fhir/is-resource-type.js';
import type { ResourceType } from '../../fhir/index.js';
import { keysOf, numberOption, onlyKnownKeys, signalOption } from '../../lib/options.js';
import type { BulkExportAllOptions } from './export-all.js';

/**
 * Where a Bulk Data export starts: `'system'` (`[base]/$export`), `'patient'`
 * (`[base]/Patient/$export`) or one Group (`[base]/Group/[id]/$export`).
 *
 * @example
 * ```ts
 * const level: BulkLevel = { group: 'diabetes-cohort' };
 * ```
 */
export type BulkLevel = 'system' | 'patient' | { readonly group: string };

/**
 * Options of `bulkExport` on the sync gateway, and the base of the async one's: what to export and
 * how long to wait for it. Times are in seconds, like the gateway's own options.
 *
 * @example
 * ```ts
 * const options: BulkExportBaseOptions = { level: 'patient', types: ['Patient', 'Observation'], since: '2024-01-01T00:00:00Z' };
 * ```
 */
export interface BulkExportBaseOptions {
  /** Default `'system'`. */
  level?: BulkLevel;
  /**
   * `_type`: only these resource types, R4's or R4B's (R4 servers export `EffectEvidenceSynthesis`,
   * `MedicinalProduct`, ..., which R4B dropped). Default: every type the server exports.
   */
  types?: readonly (ResourceType | R4OnlyResourceType)[];
  /** `_since`: only resources changed after this instant (a `Date`, or a FHIR instant or date such as `2024-01-01`). */
  since?: Date | string;
  /** `_typeFilter`: search queries such as `Observation?category=laboratory`, each sent as its own parameter. */
  typeFilter?: readonly string[];
  /** Seconds the server may take to finish the export (kick-off to manifest); then the job is deleted and the export fails with `ERR_TIMEOUT`. Default 3600; `Infinity` for none. */
  deadlineSeconds?: number;
  /** Seconds between status requests: the shortest wait, made longer (never shorter) by a server's `Retry-After`. Default 2; at least 0.1. */
  pollIntervalSeconds?: number;
  /** Status requests in a row that may be throttled (429) or fail transiently (5xx, or an OperationOutcome with a transient issue) before the export fails. Default 5. */
  maxPollErrors?: number;
  /** Origins other than the source's (`https://files.example.org`) whose output files may be downloaded; the access token goes there too when the manifest requires it. Default none: such a file is `ERR_CROSS_ORIGIN`. */
  fileOrigins?: readonly string[];
  /** `false` leaves the job on the server; by default it is deleted (`DELETE` on the status URL) once the export ends, is abandoned or fails. */
  deleteJob?: boolean;
}

/**
 * Options of `AsyncFHIRGateway.bulkExport` and `bulkExportAll`.
 *
 * @example
 * ```ts
 * const options: BulkExportOptions = { types: ['Patient'], signal: AbortSignal.timeout(600_000) };
 * ```
 */
export interface BulkExportOptions extends BulkExportBaseOptions {
  /** Aborts the export (`ERR_ABORTED`); a job in progress is deleted on the server. */
  signal?: AbortSignal;
}

/** The options after validation: times in milliseconds, `since` an instant, origins normalised. */
export interface BulkSettings {
  readonly level: BulkLevel;
  readonly types: readonly string[];
  readonly since: string | undefined;
  readonly typeFilter: readonly string[];
  readonly deadlineMs: number;
  readonly pollIntervalMs: number;
  readonly maxPollErrors: number;
  readonly fileOrigins: readonly string[];
  readonly deleteJob: boolean;
  readonly signal: AbortSignal | undefined;
}

/**
 * Defaults of the export options: a deadline of an hour, a status request every 2 s when the server
 * sends no `Retry-After`, 5 transient status failures in a row tolerated.
 */
export const BULK_DEFAULTS = Object.freeze({ deadlineSeconds: 3600, pollIntervalSeconds: 2, maxPollErrors: 5 });

/** A status request at most every 100 ms, whatever the options say: a server answering at once must not turn polling into a loop. */
const MIN_POLL_INTERVAL_SECONDS = 0.1;

const DATE_OR_INSTANT = /^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2}))?)?)?$/;
const GROUP_ID = /^[A-Za-z0-9\-.]{1,64}$/;

const EXPORT_KEYS = keysOf<BulkExportOptions>({
  level: true, types: true, since: true, typeFilter: true, deadlineSeconds: true, pollIntervalSeconds: true, maxPollErrors: true, fileOrigins: true, deleteJob: true, signal: true,
});

/** The keys of `bulkExport`'s and `bulkExportAll`'s options; any other is refused with the nearest of these. */
export const BULK_OPTION_KEYS = Object.freeze({
  bulkExport: EXPORT_KEYS,
  bulkExportAll: Object.freeze([...EXPORT_KEYS, ...keysOf<Omit<BulkExportAllOptions, keyof BulkExportOptions>>({ concurrency: true })]),
});

/**
 * Checks and copies export options: `TypeError`/`RangeError` naming the option, a key `method` does not
 * take refused with the nearest one it does.
 */
export function checkBulkOptions(options: BulkExportOptions | BulkSettings = {}, method: keyof typeof BULK_OPTION_KEYS = 'bulkExport'): BulkSettings {
  if (CHECKED.has(options as BulkSettings)) return options as BulkSettings;
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  onlyKnownKeys(options, BULK_OPTION_KEYS[method], 'options');
  return checkedSettings(parse(options as BulkExportOptions));
}

function parse(options: BulkExportOptions): BulkSettings {
  const { level = 'system', types = [], typeFilter = [], fileOrigins = [], deleteJob = true, signal } = options;
  if (level !== 'system' && level !== 'patient' && !(typeof level === 'object' && level !== null && typeof level.group === 'string' && GROUP_ID.test(level.group))) {
    throw new TypeError("options.level must be 'system', 'patient' or { group: <a FHIR id> }");
  }
  if (!Array.isArray(types) || !types.every((t) => isR4OrR4BResourceType(t))) throw new TypeError('options.types must be an array of FHIR R4 or R4B resource type names');
  if (!Array.isArray(typeFilter) || !typeFilter.every((f) => typeof f === 'string' && /^[A-Z][A-Za-z]+\?./.test(f))) {
    throw new TypeError('options.typeFilter must be an array of queries such as "Observation?category=laboratory"');
  }
  if (!Array.isArray(fileOrigins) || !fileOrigins.every(isOrigin)) throw new TypeError('options.fileOrigins must be an array of origins such as "https://files.example.org"');
  if (typeof deleteJob !== 'boolean') throw new TypeError('options.deleteJob must be a boolean');
  signalOption(signal, 'options.signal');
  return {
    level: typeof level === 'string' ? level : Object.freeze({ group: level.group }),
    types: Object.freeze([...new Set(types)]),
    since: checkSince(options.since),
    typeFilter: Object.freeze([...typeFilter]),
    deadlineMs: numberOption(options.deadlineSeconds, 'options.deadlineSeconds', BULK_DEFAULTS.deadlineSeconds, { min: 0, infinite: true, unit: 'seconds' }) * 1000,
    pollIntervalMs: numberOption(options.pollIntervalSeconds, 'options.pollIntervalSeconds', BULK_DEFAULTS.pollIntervalSeconds, { min: MIN_POLL_INTERVAL_SECONDS, unit: 'seconds' }) * 1000,
    maxPollErrors: count(options.maxPollErrors, 'maxPollErrors', BULK_DEFAULTS.maxPollErrors),
    fileOrigins: Object.freeze(fileOrigins.map((o) => new URL(o).origin)),
    deleteJob,
    signal,
  };
}

/** Settings made by {@link checkBulkOptions}, or handed over checked: taken as they are. */
const CHECKED = new WeakSet<BulkSettings>();

/**
 * Marks settings as checked (settings checked on another thread arrive as a copy; an export of several
 * sources gives each its own signal): {@link checkBulkOptions} then takes them as they are.
 */
export function checkedSettings(settings: BulkSettings): BulkSettings {
  const frozen = Object.freeze(settings);
  CHECKED.add(frozen);
  return frozen;
}

function checkSince(since: Date | string | undefined): string | undefined {
  if (since === undefined) return undefined;
  if (since instanceof Date) {
    if (Number.isNaN(since.getTime())) throw new RangeError('options.since is an invalid Date');
    return since.toISOString();
  }
  if (typeof since !== 'string' || !DATE_OR_INSTANT.test(since)) throw new TypeError('options.since must be a Date or a FHIR date or instant (2024-01-01, 2024-01-01T00:00:00Z)');
  // A date alone is the start of that day, UTC: `_since` takes an instant.
  return since.includes('T') ? since : `${since}${['-01-01', '-01', ''][since.split('-').length - 1]}T00:00:00Z`;
}

function isOrigin(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '');
}

function count(value: number | undefined, name: string, fallback: number): number {
  return numberOption(value, `options.${name}`, fallback, { integer: true, min: 0 });
}
