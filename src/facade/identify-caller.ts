/**
 * How the facade knows who calls: an API key (`X-API-Key`, or `Authorization: Bearer <key>`) compared
 * in constant time against SHA-256 digests, or a bearer JWT verified against a configured issuer's
 * JWKS. Credentials that are given and wrong are refused (401) even where anonymous reads are open.
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { FhirgateError } from '../errors.js';
import { JWKSCache } from '../http/jwks-cache.js';
import type { ProxyAgents } from '../http/proxy-agents.js';
import { decodeJWT, verifyJWT } from '../lib/jwt/verify-jwt.js';
import { keyDigest } from '../lib/key-digest.js';
import type { JWTClaims, JWTHeader } from '../lib/jwt/types.js';
import type { Caller, CallerIdentity } from './caller.js';
import { DEFAULT_MAX_TOKEN_LIFETIME_SECONDS } from './options.js';
import type { APIKeyCaller, CallerPolicy, IssuerCallers } from './options.js';
import { parseScopes, scopeAccess } from './scopes.js';
import type { Scope, ScopeLetter } from './scopes.js';

const ALGORITHMS = ['RS256', 'RS384', 'ES256', 'ES384'];
const unauthorized = (reason: string): never => {
  throw new FhirgateError('ERR_UNAUTHORIZED', reason);
};

/** The caller of an open, read-only facade (loopback without configured callers). */
const ANONYMOUS: Caller = Object.freeze({
  id: 'anonymous', name: 'anonymous', kind: 'anonymous', sources: '*', scopes: parseScopes('system/*.rs'),
  operations: new Set<string>(), patient: undefined, allowReaching: false,
});

/** The configured callers, ready to identify requests. */
export class CallerDirectory {
  readonly #keys: { readonly digest: Buffer; readonly caller: Caller }[];
  readonly #issuers: ReadonlyMap<string, IssuerCallers>;
  readonly #open: boolean;
  readonly #identity: boolean;
  readonly #jwks: JWKSCache;

  /**
   * `proxy`: the agents of the facade's outbound proxy, for the issuers' JWKS fetches. `identity`: the
   * gateway resolves patients (its `identity` option), so a token's `patient` claim of an issuer with
   * `patientSource` binds the caller to that person in every source of its policy.
   */
  constructor(callers: readonly (APIKeyCaller | IssuerCallers)[], openReadOnly: boolean, proxy?: ProxyAgents, identity = false) {
    this.#jwks = new JWKSCache({ ttlMs: 300_000, cooldownMs: 30_000, timeoutMs: 5_000, ...(proxy === undefined ? {} : { proxy }) });
    this.#keys = callers.filter((c): c is APIKeyCaller => 'apiKey' in c).map((c) => ({ digest: keyDigest(c.apiKey), caller: policyCaller(c, `key:${c.name}`, c.name, 'api-key', parseScopes(c.scopes), bindingOf(c.patient, onlySource(c))) }));
    this.#issuers = new Map(callers.filter((c): c is IssuerCallers => !('apiKey' in c)).map((c) => [c.issuer, c]));
    this.#open = openReadOnly;
    this.#identity = identity;
  }

  /** True when no caller is configured and nothing is open: the facade serves nothing. */
  get closed(): boolean {
    return !this.#open && this.#keys.length === 0 && this.#issuers.size === 0;
  }

  /**
   * The caller of a request: at once for an API key or an open facade, a promise for a JWT (its issuer's
   * keys may have to be fetched). Throws (or rejects) `ERR_UNAUTHORIZED` (a reason for the audit, never
   * for the client) when credentials are missing (and the facade is not open) or do not verify.
   */
  identify(headers: IncomingHttpHeaders): Caller | Promise<Caller> {
    const apiKey = typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined;
    const authorization = headers.authorization;
    if (apiKey === undefined && authorization === undefined) return this.#open ? ANONYMOUS : unauthorized('no credentials');
    // Given and not one bearer credential (`Basic …`, `Bearer a b`): wrong, never read as no credentials.
    const bearer = authorization === undefined ? undefined : (/^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization)?.[1] ?? unauthorized('Authorization is not one Bearer credential'));
    if (apiKey !== undefined && bearer !== undefined && apiKey !== bearer) return unauthorized('X-API-Key and Authorization name different credentials');
    if (bearer !== undefined && bearer.split('.').length === 3 && this.#issuers.size > 0) return this.#verifyToken(bearer);
    const given = keyDigest((apiKey ?? bearer)!);
    let found: Caller | undefined;
    for (const key of this.#keys) if (timingSafeEqual(given, key.digest)) found = key.caller;
    return found ?? unauthorized('unknown API key');
  }

  async #verifyToken(token: string): Promise<Caller> {
    let claims: JWTClaims;
    let issuer: IssuerCallers | undefined;
    try {
      const iss = decodeJWT(token).payload.iss;
      issuer = typeof iss === 'string' ? this.#issuers.get(iss) : undefined;
      if (issuer === undefined) return unauthorized('unknown issuer');
      const trusted = issuer;
      claims = (await verifyJWT(token, {
        algorithms: ALGORITHMS,
        key: (header) => this.#key(trusted, header),
        issuer: trusted.issuer,
        // Checked at configuration: an issuer without `audience` has said `acceptAnyAudience: true`.
        ...(trusted.audience === undefined ? {} : { audience: trusted.audience }),
        maxTokenLifetimeSeconds: trusted.maxTokenLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS,
        requiredClaims: ['exp'],
        clockToleranceSeconds: 30,
      })).payload;
    } catch (error) {
      if (error instanceof FhirgateError && error.code === 'ERR_UNAUTHORIZED') throw error;
      return unauthorized(`token refused: ${error instanceof FhirgateError ? error.message : 'invalid'}`);
    }
    const granted = typeof claims.scope === 'string' ? claims.scope : Array.isArray(claims.scp) ? claims.scp.join(' ') : '';
    const allowed = withinCeiling(parseScopes(granted), parseScopes(issuer.scopes));
    const claim = allowed.some((s) => s.context === 'patient') && typeof claims.patient === 'string' ? claims.patient : undefined;
    // The claim is an id of `patientSource` (resolved across the sources when the gateway resolves identity); a patient fixed by the issuer's policy, of its one source or by identifier.
    const binding = issuer.patient !== undefined ? bindingOf(issuer.patient, onlySource(issuer))
      : claim === undefined ? undefined
      : this.#identity && issuer.patientSource !== undefined ? { patient: claim, patientSource: issuer.patientSource, identity: { query: { source: issuer.patientSource, id: claim } } }
      : bindingOf(claim, issuer.patientSource);
    // Patient scopes mean nothing without a patient: dropped, so that they grant nothing.
    const scopes = binding === undefined ? allowed.filter((s) => s.context !== 'patient') : allowed;
    const subject = typeof claims.client_id === 'string' ? claims.client_id : typeof claims.sub === 'string' ? claims.sub : 'unknown';
    const caller = policyCaller(issuer, `jwt:${issuer.issuer}#${typeof claims.sub === 'string' ? claims.sub : subject}`, subject, 'jwt', scopes, binding);
    return {
      ...caller,
      issuer: issuer.issuer,
      ...(typeof claims.jti === 'string' ? { jti: claims.jti } : {}),
      ...(typeof claims.fhirUser === 'string' ? { user: claims.fhirUser } : {}),
    };
  }

  async #key(issuer: IssuerCallers, header: JWTHeader): Promise<JsonWebKey | undefined> {
    const kid = header.kid;
    const local = issuer.jwks?.keys.find((k) => kid === undefined || k.kid === kid);
    if (local !== undefined) return local as JsonWebKey;
    if (issuer.jwksUrl === undefined || typeof kid !== 'string') return undefined;
    return this.#jwks.find(issuer.jwksUrl, kid);
  }
}

/** The one source of a policy that names exactly one (a patient-bound policy names at most one: see the option checks). */
function onlySource(policy: CallerPolicy): string | undefined {
  return Array.isArray(policy.sources) && policy.sources.length === 1 ? policy.sources[0] : undefined;
}

/** How a caller is bound to a patient: `patient` and, for a bare id, the one source it is local to; or by identity. */
interface Binding {
  readonly patient: string;
  readonly patientSource?: string | undefined;
  readonly identity?: CallerIdentity;
}

/** The binding of a policy's (or a claim's) `patient`: a bare id of `patientSource`, or an identifier (every source, resolved per request). */
function bindingOf(patient: CallerPolicy['patient'], patientSource: string | undefined): Binding | undefined {
  if (patient === undefined) return undefined;
  if (typeof patient === 'object') return { patient: patient.identifier, identity: { query: { identifier: patient.identifier } } };
  return { patient, patientSource };
}

/**
 * A caller from a policy and the scopes it holds. A caller bound by a bare id may use `patientSource`
 * only (if its policy allows it), and no source without one: its patient id is applied nowhere else. A
 * caller bound by identity keeps its policy's sources, each held to the patient's id there.
 */
function policyCaller(policy: CallerPolicy, id: string, name: string, kind: Caller['kind'], scopes: readonly Scope[], binding: Binding | undefined): Caller {
  const allowed = policy.sources === undefined ? new Set<string>() : policy.sources === '*' ? '*' : new Set(policy.sources);
  const patientSource = binding?.patientSource;
  const bound = patientSource !== undefined && (allowed === '*' || allowed.has(patientSource)) ? new Set([patientSource]) : new Set<string>();
  const sources = binding === undefined || binding.identity !== undefined ? allowed : bound;
  const rate = policy.rate?.perSecond === undefined ? undefined : { perSecond: policy.rate.perSecond, burst: policy.rate.burst ?? Math.max(1, Math.ceil(policy.rate.perSecond)) };
  return Object.freeze({
    id, name, kind, sources, scopes, patient: binding?.patient,
    ...(binding === undefined || patientSource === undefined ? {} : { patientSource }),
    ...(binding?.identity === undefined ? {} : { identity: binding.identity }),
    operations: new Set(policy.operations ?? []),
    allowReaching: policy.allowReaching === true,
    ...(rate === undefined ? {} : { rate }),
  });
}

/** The token's scopes, each cut down to the letters the issuer's ceiling allows (a ceiling of `patient/` scopes makes them `patient/`). */
function withinCeiling(granted: readonly Scope[], ceiling: readonly Scope[]): Scope[] {
  const kept: Scope[] = [];
  for (const scope of granted) {
    for (const context of ['open', 'compartment'] as const) {
      const letters = [...scope.letters].filter((l: ScopeLetter) => {
        const access = scopeAccess(ceiling, scope.type, l);
        return context === 'open' ? access === 'open' && scope.context !== 'patient' : access !== undefined && (access === 'compartment' || scope.context === 'patient');
      });
      if (letters.length > 0) kept.push({ context: context === 'open' ? scope.context : 'patient', type: scope.type, letters: new Set(letters) });
    }
  }
  return kept;
}
