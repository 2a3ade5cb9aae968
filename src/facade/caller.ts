/**
 * Who is calling the facade, once identified, and what its policy allows: the sources, the SMART
 * scopes (types and interactions), the `$operations`, an optional patient compartment.
 * @module
 */
import type { Scope } from './scopes.js';

/** An identified caller. Never holds the credential it was identified by. */
export interface Caller {
  /** Unique and stable: binds page tokens, keys rate limits (`key:<name>`, `jwt:<iss>#<sub>`, `anonymous`). */
  readonly id: string;
  /** What the audit names it: the API key's name, the token's `client_id` or `sub`. */
  readonly name: string;
  readonly kind: 'api-key' | 'jwt' | 'anonymous';
  /** The sources it may use (with a `patient`: its `patientSource` at most, never more than one). */
  readonly sources: '*' | ReadonlySet<string>;
  /** What it may do (for a JWT: the token's scopes, each also allowed by the issuer's ceiling). */
  readonly scopes: readonly Scope[];
  /** The `$operations` it may call (`$everything`). */
  readonly operations: ReadonlySet<string>;
  /** The patient id of its compartment: every access is held to `Patient/<id>`'s compartment. */
  readonly patient: string | undefined;
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
 * Why `caller` may not use `source`, for the refusal's OperationOutcome: for a patient-bound caller,
 * that its patient id belongs to another source (or to none it was told of), and what to configure.
 */
export function sourceRefusal(caller: Caller, source: string): string {
  if (caller.patient === undefined) return `caller "${caller.name}" may not use source "${source}"`;
  if (caller.patientSource === undefined) {
    return caller.kind === 'jwt'
      ? `the token's patient is an id of no configured source: set patientSource on issuer "${caller.issuer ?? ''}" to the source whose local id it is`
      : `caller "${caller.name}" is bound to a patient but has no source: give it the one source whose id that is`;
  }
  return `caller "${caller.name}" is bound to a patient id of source "${caller.patientSource}"; an id is local to its source, so it is not applied to "${source}"`;
}
