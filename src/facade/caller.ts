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
  /** The sources it may use. */
  readonly sources: '*' | ReadonlySet<string>;
  /** What it may do (for a JWT: the token's scopes, each also allowed by the issuer's ceiling). */
  readonly scopes: readonly Scope[];
  /** The `$operations` it may call (`$everything`). */
  readonly operations: ReadonlySet<string>;
  /** The patient id of its compartment: every access is held to `Patient/<id>`'s compartment. */
  readonly patient: string | undefined;
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
