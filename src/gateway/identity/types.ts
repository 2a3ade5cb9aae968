/**
 * What `resolvePatient` answers: per source, the patient's local id or why there is none.
 * @module
 */

/**
 * The patient's record in one source: exactly one local id. `seeAlso` lists other records of that source
 * the found record links to with `seealso` or `refer` (same person, but separate records that stay valid:
 * reported, never used as the patient's id).
 */
export interface FoundOutcome {
  readonly source: string;
  readonly status: 'found';
  /** The local id (`Patient/<id>` in that source), after following `replaced-by` to the surviving record. */
  readonly id: string;
  /** Ids of other records in that source that the found one links to with `seealso` or `refer`. */
  readonly seeAlso: readonly string[];
}

/** The source holds no record of the patient (or was not asked: it is no authority for any identifier). */
export interface AbsentOutcome {
  readonly source: string;
  readonly status: 'absent';
  /** Why: no record carries the identifiers, or the source is believed for none of them. */
  readonly reason: string;
}

/** Two or more different records match: the source is refused for this patient. */
export interface AmbiguousOutcome {
  readonly source: string;
  readonly status: 'ambiguous';
  /** What pointed where, for an operator (identifiers and local ids, never a record's content). */
  readonly reason: string;
  /** The local ids that matched. */
  readonly ids: readonly string[];
}

/** The source could not be asked (down, 5xx, time-out, refused): nothing is known of it. */
export interface FailedOutcome {
  readonly source: string;
  readonly status: 'failed';
  /** The error code (`ERR_NETWORK`, `ERR_TIMEOUT`, `ERR_FHIR_HTTP`, ...). */
  readonly code: string;
  /** A one-line reason fit for a client, never an upstream address or a token. */
  readonly reason: string;
}

/**
 * One source's outcome of a resolution.
 *
 * @example
 * ```ts
 * const describe = (o: SourceOutcome): string => (o.status === 'found' ? `${o.source}: Patient/${o.id}` : `${o.source}: ${o.status}`);
 * ```
 */
export type SourceOutcome = FoundOutcome | AbsentOutcome | AmbiguousOutcome | FailedOutcome;

/**
 * What {@link PatientQuery} names: one business identifier, or a local id in one source.
 *
 * @example
 * ```ts
 * const byIdentifier: PatientQuery = { identifier: 'http://hospital.example.org/mrn|12345' };
 * const byLocalId: PatientQuery = { source: 'ehr', id: '123' };
 * ```
 */
export type PatientQuery = { readonly identifier: string } | { readonly source: string; readonly id: string };

/**
 * The answer of `gateway.resolvePatient()`: the identifiers matched and each source's outcome, in the
 * order of the sources asked.
 *
 * @example
 * ```ts
 * const r: PatientResolution = await gw.resolvePatient({ identifier: 'http://hospital.example.org/mrn|12345' });
 * for (const o of r.outcomes) if (o.status === 'found') console.log(o.source, o.id);
 * ```
 */
export interface PatientResolution {
  /** The query as text: `system|value`, or `<source>/Patient/<id>`. */
  readonly query: string;
  /** The identifiers (`system|value`) every source was asked for. */
  readonly identifiers: readonly string[];
  /** Per source asked, in order. */
  readonly outcomes: readonly SourceOutcome[];
  /** True when this answer came from the cache (this process's, or the shared store). */
  readonly cached: boolean;
}

/**
 * Options of `gateway.resolvePatient()`.
 *
 * @example
 * ```ts
 * await gw.resolvePatient({ source: 'ehr', id: '123' }, { sources: ['ehr', 'lab'], signal: AbortSignal.timeout(5000) });
 * ```
 */
export interface ResolveOptions {
  /** The sources to resolve in, in order. Default: every registered source. */
  sources?: readonly string[];
  /** Aborts the resolution (the sources not answered yet are `failed` with `ERR_ABORTED`). */
  signal?: AbortSignal;
}
