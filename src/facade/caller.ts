/**
 * Who is calling the facade, once identified, and what its policy allows: the sources, the SMART
 * scopes (types and interactions), the `$operations`, an optional patient compartment.
 * @module
 */
import type { PatientQuery } from '../gateway/index.js';
import type { Scope } from './scopes.js';

/**
 * The patient of an identity-bound caller: what is resolved across its sources (a business identifier,
 * or a JWT's `patient` claim as a local id of the issuer's `patientSource`) and, once resolved for a
 * request, that patient's local id in each source (see {@link patientIn}).
 */
export interface CallerIdentity {
  /** What is resolved: `{ identifier: 'system|value' }`, or `{ source, id }` (a token's claim). */
  readonly query: PatientQuery;
  /** Per source, the patient's local id there; `undefined` until resolved for the request: no source then. */
  readonly ids?: ReadonlyMap<string, string>;
  /** Per source refused for this patient (ambiguous, failed, not resolved), the reason, for the refusal and the audit. */
  readonly refused?: ReadonlyMap<string, string>;
}

/** An identified caller. Never holds the credential it was identified by. */
export interface Caller {
  /** Unique and stable: binds page tokens, keys rate limits (`key:<name>`, `jwt:<iss>#<sub>`, `anonymous`). */
  readonly id: string;
  /** What the audit names it: the API key's name, the token's `client_id` or `sub`. */
  readonly name: string;
  readonly kind: 'api-key' | 'jwt' | 'anonymous';
  /**
   * The sources it may use (bound by a bare patient id: its `patientSource` at most, never more than one;
   * bound by identity: its policy's, each held to the patient's local id there, see {@link patientIn}).
   */
  readonly sources: '*' | ReadonlySet<string>;
  /** What it may do (for a JWT: the token's scopes, each also allowed by the issuer's ceiling). */
  readonly scopes: readonly Scope[];
  /** The `$operations` it may call (`$everything`). */
  readonly operations: ReadonlySet<string>;
  /**
   * Set when every access is held to one patient's compartment: the local id of `patientSource` (a bare
   * id), or what `identity` resolves (`system|value`, or the token's claim). Never applied to a source
   * as such: {@link patientIn} answers the id to use at each source.
   */
  readonly patient: string | undefined;
  /** For a caller bound by identity: the patient across its sources. */
  readonly identity?: CallerIdentity;
  /**
   * The one source whose local id `patient` is; with a `patient` and without this, it may use no source.
   * An id is never applied to another source: `Patient/123` there is another person.
   */
  readonly patientSource?: string;
  /** True: chained parameters, `_has`, `_include`, `_revinclude` are allowed inside its compartment. */
  readonly allowReaching: boolean;
  /** The issuer of its token. */
  readonly issuer?: string;
  /** The `jti` of its token (audited as `urn:ietf:params:oauth:jti:<jti>`; never the token). */
  readonly jti?: string;
  /** The user its token names (`fhirUser`), audited as the requestor. */
  readonly user?: string;
  /** Its own rate, requests per second and burst, when its policy sets one. */
  readonly rate?: { readonly perSecond: number; readonly burst: number };
}

/** True when `caller` may use `source`. */
export function mayUseSource(caller: Caller, source: string): boolean {
  return caller.sources === '*' || caller.sources.has(source);
}

/**
 * The local id of `caller`'s patient at `source`, the id its compartment holds to there; `undefined` when
 * it has no patient or none at that source (a bare id: any source but `patientSource`; by identity: a
 * source where the patient is absent, ambiguous or failed, or before resolution).
 */
export function patientIn(caller: Caller, source: string): string | undefined {
  if (caller.patient === undefined) return undefined;
  if (caller.identity !== undefined) return caller.identity.ids?.get(source);
  return source === caller.patientSource ? caller.patient : undefined;
}

/**
 * Why `caller` may not use `source`, for the refusal's OperationOutcome: for a caller bound by a bare id,
 * that its patient id belongs to another source (or to none it was told of), and what to configure; for
 * one bound by identity, why the patient has no id there (refused as ambiguous or failed, or absent).
 */
export function sourceRefusal(caller: Caller, source: string): string {
  if (caller.patient === undefined || (caller.identity !== undefined && !mayUseSource(caller, source))) return `caller "${caller.name}" may not use source "${source}"`;
  if (caller.identity === undefined) return bareRefusal(caller, source);
  const why = caller.identity.refused?.get(source);
  if (why !== undefined) return `source "${source}" is refused for the caller's patient: ${why}`;
  return caller.identity.ids === undefined ? `the caller's patient is not resolved for source "${source}"` : `the caller's patient is not in source "${source}"`;
}

/** Why a caller bound by a bare patient id may not use `source`. */
function bareRefusal(caller: Caller, source: string): string {
  if (caller.patientSource === undefined) {
    return caller.kind === 'jwt'
      ? `the token's patient is an id of no configured source: set patientSource on issuer "${caller.issuer ?? ''}" to the source whose local id it is`
      : `caller "${caller.name}" is bound to a patient but has no source: give it the one source whose id that is`;
  }
  return `caller "${caller.name}" is bound to a patient id of source "${caller.patientSource}"; an id is local to its source, so it is not applied to "${source}"`;
}
