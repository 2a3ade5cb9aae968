/**
 * `gateway.resolvePatient()`: one patient's local id in every source, by business identifier or from
 * a local id in one source. Sources are asked in parallel; the answer is cached (see
 * {@link CrosswalkCache}) and every resolution, cached or not, sends one `fhir.patient.resolve` event.
 * @module
 */
import { createHash } from 'node:crypto';
import { FhirgateError } from '../../errors.js';
import type { EventPayload } from '../../events/types.js';
import type { KeyValueStore } from '../../lib/key-value-store.js';
import { signalOption } from '../../lib/options.js';
import { CrosswalkCache } from './crosswalk-cache.js';
import { IDENTITY_DEFAULTS, isAuthority, type IdentitySettings } from '../core/identity-options.js';
import { identifiersOf, survivorOf } from './patient-links.js';
import { checkQuery, identifierText, queryText, type CheckedQuery, type Identifier } from './patient-query.js';
import type { PatientReader } from './patient-reader.js';
import { failed, lookUpSource } from './source-lookup.js';
import type { PatientQuery, PatientResolution, ResolveOptions, SourceOutcome } from './types.js';

/** The name of the event every resolution sends. */
export const RESOLVE_EVENT = 'fhir.patient.resolve';

/** What a resolver needs of its gateway. */
export interface ResolverHost {
  readonly settings: IdentitySettings;
  readonly reader: PatientReader;
  /** The registered sources and their base URLs (a replaced source's base changes the cache key). */
  sources(): ReadonlyMap<string, string>;
  /** The shared store, if the gateway has one. */
  readonly store: KeyValueStore | undefined;
  readonly events: { wants(name: string): boolean; emit(name: string, payload: EventPayload): void };
  /** The gateway's request time-out in seconds. */
  readonly timeoutSeconds: number;
}

/** Resolves patients across a gateway's sources. */
export class PatientResolver {
  readonly #host: ResolverHost;
  readonly #cache: CrosswalkCache;

  constructor(host: ResolverHost) {
    this.#host = host;
    this.#cache = new CrosswalkCache(host.store);
  }

  /**
   * Resolves `query` in `options.sources` (default every source). `TypeError` for a malformed query or
   * option, `ERR_UNKNOWN_SOURCE` for a source (asked, queried or named in `authorities`) that is not
   * registered, `ERR_ABORTED` when `options.signal` aborts.
   */
  async resolve(query: PatientQuery, options: ResolveOptions = {}): Promise<PatientResolution> {
    const { settings } = this.#host;
    const checked = checkQuery(query, settings);
    const registered = this.#host.sources();
    const sources = this.#sourcesOf(options, registered, checked);
    const signal = signalOption(options.signal, 'resolvePatient: options.signal');
    // `ttlSeconds: 0` resolves on every call: no key is hashed and no store is asked (not even for a
    // replica's entry), so that such a gateway never answers from a cache it was told not to keep.
    const key = settings.ttlMs > 0 ? cacheKey(checked, sources, registered, settings) : undefined;
    const hit = key === undefined ? undefined : await this.#cache.get(key);
    if (hit !== undefined) return this.#answer(checked, { ...hit, cached: true });
    const fresh = await this.#resolve(checked, sources, signal);
    signal?.throwIfAborted();
    if (key !== undefined) await this.#cache.put(key, fresh, ttlOf(fresh.outcomes, settings));
    return this.#answer(checked, { ...fresh, cached: false });
  }

  /** Asks the sources. */
  async #resolve(query: CheckedQuery, sources: readonly string[], signal: AbortSignal | undefined): Promise<{ identifiers: string[]; outcomes: SourceOutcome[] }> {
    const { settings, reader, timeoutSeconds } = this.#host;
    let identifiers: Identifier[];
    let origin: SourceOutcome | undefined;
    if (query.kind === 'identifier') {
      identifiers = [query.identifier];
    } else {
      [origin, identifiers] = await this.#origin(query, signal);
    }
    const outcomes = await Promise.all(
      sources.map((source) => {
        if (origin !== undefined && source === origin.source) return origin;
        if (origin !== undefined && origin.status !== 'found') return notAsked(source, origin);
        const believed = identifiers.filter((i) => isAuthority(settings, i.system, source));
        return lookUpSource({ reader, source, identifiers: believed, signal, timeoutSeconds });
      }),
    );
    return { identifiers: identifiers.map(identifierText), outcomes };
  }

  /** The local record a `{ source, id }` query starts from, and its identifiers that source is believed for. */
  async #origin(query: CheckedQuery & { kind: 'local' }, signal: AbortSignal | undefined): Promise<[SourceOutcome, Identifier[]]> {
    const { settings, reader, timeoutSeconds } = this.#host;
    const { source, id } = query;
    try {
      const patient = await reader.read(source, id, signal);
      if (patient === undefined) return [{ source, status: 'absent', reason: `the source holds no Patient/${id}` }, []];
      const survivor = await survivorOf(reader, source, id, patient, signal);
      if ('problem' in survivor) return [{ source, status: 'ambiguous', reason: survivor.problem, ids: [id] }, []];
      const record = survivor.id === id ? patient : await reader.read(source, survivor.id, signal);
      const identifiers = identifiersOf(record ?? {}, (system) => settings.systems.includes(system) && isAuthority(settings, system, source));
      return [{ source, status: 'found', id: survivor.id, seeAlso: survivor.seeAlso }, identifiers];
    } catch (err) {
      return [failed(source, err, timeoutSeconds), []];
    }
  }

  /** The sources asked, each registered; the authorities too. */
  #sourcesOf(options: ResolveOptions, registered: ReadonlyMap<string, string>, query: CheckedQuery): string[] {
    if (typeof options !== 'object' || options === null) throw new TypeError('resolvePatient: options must be an object');
    const { sources = [...registered.keys()] } = options;
    if (!Array.isArray(sources) || !sources.every((s) => typeof s === 'string')) throw new TypeError('resolvePatient: options.sources must be an array of source names');
    const named = [...sources, ...(query.kind === 'local' ? [query.source] : [])];
    for (const [system, listed] of this.#host.settings.authorities) {
      const unknown = listed.find((s) => !registered.has(s));
      if (unknown !== undefined) throw new FhirgateError('ERR_UNKNOWN_SOURCE', `identity.authorities[${JSON.stringify(system)}] names ${JSON.stringify(unknown)}, which is not a registered source`);
    }
    const unknown = named.find((s) => !registered.has(s));
    if (unknown !== undefined) throw new FhirgateError('ERR_UNKNOWN_SOURCE', `resolvePatient: no source is registered as ${JSON.stringify(unknown.slice(0, 100))}`);
    return [...new Set(sources)];
  }

  /** Sends the event and hands the resolution back. */
  #answer(query: CheckedQuery, r: Omit<PatientResolution, 'query'>): PatientResolution {
    const resolution: PatientResolution = Object.freeze({ query: queryText(query), ...r });
    if (this.#host.events.wants(RESOLVE_EVENT)) this.#host.events.emit(RESOLVE_EVENT, resolveEventPayload(query, resolution));
    return resolution;
  }
}

/**
 * The payload of `fhir.patient.resolve`: the query, the identifiers used, each source's local id and
 * outcome (also as JSON in `outcomes`, for an audit record), and whether it came from the cache. Never
 * a token or a record's content.
 */
function resolveEventPayload(query: CheckedQuery, r: PatientResolution): EventPayload {
  const by = (status: SourceOutcome['status']): string => r.outcomes.filter((o) => o.status === status).map((o) => o.source).join(',');
  return {
    resource_type: 'Patient',
    operation: 'resolve',
    query: r.query,
    query_kind: query.kind,
    source: query.kind === 'local' ? query.source : null,
    resource_id: query.kind === 'local' ? query.id : null,
    identifiers: r.identifiers.join(','),
    sources: r.outcomes.map((o) => o.source).join(','),
    patient_ids: r.outcomes.flatMap((o) => (o.status === 'found' ? [`${o.source}=${o.id}`] : [])).join(','),
    found: by('found'),
    absent: by('absent'),
    ambiguous: by('ambiguous'),
    failed: by('failed'),
    outcomes: JSON.stringify(r.outcomes),
    cached: r.cached,
  };
}

/** A source not asked because the starting record was not found or not usable. */
function notAsked(source: string, origin: SourceOutcome): SourceOutcome {
  if (origin.status === 'failed') return { source, status: 'failed', code: origin.code, reason: `not asked: the patient's identifiers could not be read from ${JSON.stringify(origin.source)}` };
  if (origin.status === 'ambiguous') return { source, status: 'ambiguous', reason: `not asked: the patient's record in ${JSON.stringify(origin.source)} is ambiguous`, ids: [] };
  return { source, status: 'absent', reason: `not asked: ${JSON.stringify(origin.source)} holds no such patient` };
}

/** Full `ttlSeconds` when every source answered clearly; at most 10 s with an ambiguous one; 0 with a failed one. */
function ttlOf(outcomes: readonly SourceOutcome[], settings: IdentitySettings): number {
  if (outcomes.some((o) => o.status === 'failed')) return 0;
  if (outcomes.some((o) => o.status === 'ambiguous')) return Math.min(settings.ttlMs, IDENTITY_DEFAULTS.ambiguousTtlSeconds * 1000);
  return settings.ttlMs;
}

/** The query, the sources asked (with their bases) and the settings, hashed: a change of any is another entry. */
function cacheKey(query: CheckedQuery, sources: readonly string[], registered: ReadonlyMap<string, string>, settings: IdentitySettings): string {
  const material = JSON.stringify([queryText(query), sources.map((s) => [s, registered.get(s)]), settings.systems, [...settings.authorities]]);
  return `fhirgate:identity:${createHash('sha256').update(material).digest('base64url')}`;
}
