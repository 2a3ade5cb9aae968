/**
 * The options of a `FHIRFacade`: its callers and their policies, the federated base's name, page
 * tokens, rate limits and the audit sink. Checked and copied once; misuse throws at once.
 * @module
 */
import { checkProxyOptions } from '../http/proxy-options.js';
import type { ProxyOptions } from '../http/proxy-options.js';
import type { KeyValueStore } from '../lib/key-value-store.js';
import { checkStore } from '../lib/key-value-store.js';
import { booleanOption, checkObject, keysOf, numberOption, onlyKnownKeys, stringOption } from '../lib/options.js';

/**
 * What a caller may do, by configuration. Without `sources` it may use none.
 *
 * @example
 * ```ts
 * const policy: CallerPolicy = { sources: ['ehr'], scopes: 'system/Patient.rs system/Observation.rs', patient: '123', operations: ['$everything'] };
 * ```
 */
export interface CallerPolicy {
  /** The sources it may use (`'*'`: every one). Default none. */
  sources?: '*' | readonly string[];
  /** SMART scopes (v1 or v2): the types and interactions allowed. For an issuer, the ceiling of what its tokens may grant. */
  scopes: string;
  /**
   * Holds every access to one patient's compartment. A bare id (`'123'`) is local to one source: a caller
   * with one names at most one source in `sources`, the patient's. `{ identifier: 'system|value' }` (a
   * system of the gateway's `identity` option) is the same person in every source: resolved per request
   * to each source's local id. For an issuer, tokens with `patient/` scopes bring their own `patient`
   * claim instead (see `patientSource`).
   */
  patient?: string | PatientIdentifier;
  /** `$operations` it may call, by name (`$everything`). Default none. */
  operations?: readonly string[];
  /** Allow chained parameters, `_has`, `_include`, `_revinclude` inside a compartment. Default false. */
  allowReaching?: boolean;
  /** Its own rate limit, on top of the sources'. */
  rate?: RateOptions;
}

/**
 * A patient named by a business identifier: `system|value`, exactly (never fuzzy).
 *
 * @example
 * ```ts
 * const patient: PatientIdentifier = { identifier: 'http://hospital.example.org/mrn|12345' };
 * ```
 */
export interface PatientIdentifier {
  /** `system|value`: the system one of the gateway's `identity.systems`. */
  identifier: string;
}

/**
 * A caller identified by an API key (`X-API-Key: <key>` or `Authorization: Bearer <key>`).
 *
 * @example
 * ```ts
 * const billing: APIKeyCaller = { name: 'billing', apiKey: process.env.BILLING_KEY!, sources: '*', scopes: 'system/*.rs' };
 * ```
 */
export interface APIKeyCaller extends CallerPolicy {
  /** The caller's name, as the audit records it. */
  name: string;
  /** The key (kept only as a SHA-256 digest, compared in constant time). */
  apiKey: string;
}

/**
 * Callers holding bearer JWTs from an issuer: verified against its JWKS (`jwks` inline, or fetched from
 * `jwksUrl`), `iss` equal to `issuer`, `aud` holding `audience` (required: RFC 8725 §3.9), `exp`
 * required, a lifetime of at most `maxTokenLifetimeSeconds`. A token's `patient` claim is an id of one
 * source, `patientSource`: patient-bound tokens are served there only (and nowhere without it).
 *
 * @example
 * ```ts
 * const idp: IssuerCallers = { issuer: 'https://idp.example.org', jwksUrl: 'https://idp.example.org/jwks.json', audience: 'https://gw.example.org/fhir', sources: '*', scopes: 'system/*.rs patient/*.rs', patientSource: 'ehr' };
 * ```
 */
export interface IssuerCallers extends CallerPolicy {
  /** The `iss` of its tokens. */
  issuer: string;
  /** Its public keys, inline (a JWK Set). */
  jwks?: { keys: readonly Record<string, unknown>[] };
  /** Where its JWK Set is fetched (http or https). */
  jwksUrl?: string;
  /** The `aud` every token must hold (RFC 8725 §3.9): the facade's URL as the issuer names it. Required, unless `acceptAnyAudience`. */
  audience?: string;
  /**
   * Turns off the audience check: tokens this issuer made for any other service are accepted too. Only
   * for an issuer that makes tokens for this facade alone. Default false.
   */
  acceptAnyAudience?: boolean;
  /**
   * The source whose local patient id a token's `patient` claim is. A token with a `patient` claim is
   * refused (403) on every other source, and on every source when this is not set.
   */
  patientSource?: string;
  /** The longest lifetime a token may have, `exp - iat` (`exp - now` without `iat`), in seconds; longer ones are refused (401). Default 3600. */
  maxTokenLifetimeSeconds?: number;
}

/**
 * A rate: requests per second, and how many may come at once (the bucket's size).
 *
 * @example
 * ```ts
 * const rate: RateOptions = { perSecond: 20, burst: 40 };
 * ```
 */
export interface RateOptions {
  /** Requests per second (more than 0). */
  perSecond: number;
  /** Default `perSecond`. */
  burst?: number;
}

/**
 * A source's protection: a rate and a cap on calls in flight.
 *
 * @example
 * ```ts
 * const ehr: SourceLimits = { perSecond: 50, burst: 100, maxInFlight: 20 };
 * ```
 */
export interface SourceLimits extends Partial<RateOptions> {
  /** Calls to the source in flight at once, at most (per process). */
  maxInFlight?: number;
}

/**
 * Where AuditEvents go besides the `fhir.audit` events: a FHIR source, in `batch` Bundles.
 *
 * @example
 * ```ts
 * const audit: AuditSinkOptions = { source: 'audit', batchSize: 50, flushIntervalMs: 1000, maxQueue: 10_000 };
 * ```
 */
export interface AuditSinkOptions {
  /** The gateway source that stores them. */
  source: string;
  /** AuditEvents per batch. Default 50. */
  batchSize?: number;
  /** Milliseconds between flushes. Default 1000. */
  flushIntervalMs?: number;
  /** AuditEvents held at most; past it the oldest are dropped and counted as lost. Default 10 000. */
  maxQueue?: number;
}

/**
 * Options of `new FHIRFacade(gateway, options)`.
 *
 * @example
 * ```ts
 * const options: FHIRFacadeOptions = { callers: [{ name: 'app', apiKey: 'k', sources: '*', scopes: 'system/*.rs' }], federatedName: 'all' };
 * ```
 */
export interface FHIRFacadeOptions {
  /** Who may call, and what each may do. None: nothing is served (unless `openReadOnly`). */
  callers?: readonly (APIKeyCaller | IssuerCallers)[];
  /**
   * Serve read and search of every source to anyone, with no credentials. For a facade listening on
   * loopback only (the CLI turns it on there when no caller is configured, and says so). Default false.
   */
  openReadOnly?: boolean;
  /** The federated base's name, under the prefix. Default `all`. */
  federatedName?: string;
  /** The HMAC key of page tokens (at least 32 characters); replicas must share it. Default: random per process. */
  pageTokenSecret?: string;
  /** Seconds a page token stays valid. Default 600. */
  pageTokenTtlSeconds?: number;
  /** Per source name; `'*'` applies to sources not named. */
  limits?: Readonly<Record<string, SourceLimits>>;
  /** Shares rate-limit counts across replicas (the store of the gateway's tokens, e.g. `redisStore`). */
  limitStore?: KeyValueStore;
  /** A FHIR source that stores the AuditEvents. */
  audit?: AuditSinkOptions;
  /** What AuditEvents name as the observer (`source.observer.display`). Default `fhirgate`. */
  observerName?: string;
  /**
   * The outbound HTTP proxy for the facade's own calls: the JWKS of its JWT issuers (`jwksUrl`). The
   * gateway's calls go through the gateway's `proxy`. Default: none (the library reads no environment).
   */
  proxy?: ProxyOptions;
}

/** The options after checks. */
export interface CheckedFacadeOptions {
  readonly callers: readonly (APIKeyCaller | IssuerCallers)[];
  readonly openReadOnly: boolean;
  readonly federatedName: string;
  readonly pageTokenSecret: string | undefined;
  readonly pageTokenTtlSeconds: number;
  readonly limits: Readonly<Record<string, SourceLimits>>;
  readonly limitStore: KeyValueStore | undefined;
  readonly audit: Required<AuditSinkOptions> | undefined;
  readonly observerName: string;
  readonly proxy: ProxyOptions | undefined;
}

/** Names a source may not have under a facade's prefix: the gateway's own routes. */
export const RESERVED_NAMES: readonly string[] = Object.freeze(['transform', 'aggregate', 'metadata', 'status']);

const PATIENT_KEYS = keysOf<PatientIdentifier>({ identifier: true });
const POLICY_KEYS = keysOf<CallerPolicy>({ sources: true, scopes: true, patient: true, operations: true, allowReaching: true, rate: true });

/**
 * The keys each option object of the facade takes; any other is refused with the nearest of these.
 * (A `jwks` is a JWK Set, whose other members RFC 7517 §5 says to ignore: it is not checked here.)
 */
export const OPTION_KEYS = Object.freeze({
  options: keysOf<FHIRFacadeOptions>({
    callers: true, openReadOnly: true, federatedName: true, pageTokenSecret: true, pageTokenTtlSeconds: true, limits: true, limitStore: true, audit: true, observerName: true, proxy: true,
  }),
  apiKeyCaller: Object.freeze([...keysOf<Omit<APIKeyCaller, keyof CallerPolicy>>({ name: true, apiKey: true }), ...POLICY_KEYS]),
  issuerCallers: Object.freeze([
    ...keysOf<Omit<IssuerCallers, keyof CallerPolicy>>({ issuer: true, jwks: true, jwksUrl: true, audience: true, acceptAnyAudience: true, patientSource: true, maxTokenLifetimeSeconds: true }),
    ...POLICY_KEYS,
  ]),
  rate: keysOf<RateOptions>({ perSecond: true, burst: true }),
  limits: keysOf<SourceLimits>({ perSecond: true, burst: true, maxInFlight: true }),
  audit: keysOf<AuditSinkOptions>({ source: true, batchSize: true, flushIntervalMs: true, maxQueue: true }),
});

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** What a caller's `apiKey` needs at least, in characters. */
export const MIN_API_KEY_LENGTH = 16;
/** What `pageTokenSecret` needs at least, in characters. */
export const MIN_PAGE_TOKEN_SECRET_LENGTH = 32;
/** `maxTokenLifetimeSeconds` when an issuer does not set it. */
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 3600;

/**
 * Checks and copies facade options; `TypeError`/`RangeError` naming the option under `name`
 * (`options.callers[0].apiKey must be …`).
 */
export function checkFacadeOptions(options: FHIRFacadeOptions, name = 'options'): CheckedFacadeOptions {
  checkObject(options, name);
  onlyKnownKeys(options, OPTION_KEYS.options, name);
  const callers = checkCallerList(options.callers, `${name}.callers`);
  const federatedName = stringOption(options.federatedName, `${name}.federatedName`, 'all', true);
  if (!NAME.test(federatedName) || RESERVED_NAMES.includes(federatedName)) throw new TypeError(`${name}.federatedName "${federatedName}" must be a path segment other than ${RESERVED_NAMES.join(', ')}`);
  const secret = options.pageTokenSecret;
  if (secret !== undefined && (typeof secret !== 'string' || secret.length < MIN_PAGE_TOKEN_SECRET_LENGTH)) throw new TypeError(`${name}.pageTokenSecret must be a string of at least ${MIN_PAGE_TOKEN_SECRET_LENGTH} characters`);
  const limits = options.limits ?? {};
  checkObject(limits, `${name}.limits`);
  for (const [source, l] of Object.entries(limits)) checkRate(l, `${name}.limits.${source}`, OPTION_KEYS.limits);
  if (options.limitStore !== undefined) checkStore(options.limitStore, `${name}.limitStore`);
  checkProxyOptions(options.proxy, `${name}.proxy`);
  return Object.freeze({
    callers,
    openReadOnly: booleanOption(options.openReadOnly, `${name}.openReadOnly`, false),
    federatedName,
    pageTokenSecret: secret,
    pageTokenTtlSeconds: numberOption(options.pageTokenTtlSeconds, `${name}.pageTokenTtlSeconds`, 600, { min: 1, integer: true }),
    limits: { ...limits },
    limitStore: options.limitStore,
    audit: options.audit === undefined ? undefined : checkAudit(options.audit, `${name}.audit`),
    observerName: stringOption(options.observerName, `${name}.observerName`, 'fhirgate', true),
    proxy: options.proxy,
  });
}

/**
 * Checks and copies a list of callers (`name` is the list's, `options.callers`): each caller, then that
 * no API-key name and no issuer appears twice.
 */
export function checkCallerList(value: unknown, name: string): readonly (APIKeyCaller | IssuerCallers)[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array`);
  const callers = value.map((c: unknown, i) => checkCaller(c, `${name}[${i}]`));
  const ids = callers.map((c) => ('apiKey' in c ? `the name "${c.name}"` : `the issuer "${c.issuer}"`));
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new TypeError(`${name}: ${twice} appears twice`);
  return Object.freeze(callers);
}

function checkCaller(c: unknown, name: string): APIKeyCaller | IssuerCallers {
  checkObject(c, name);
  const form = 'apiKey' in c ? OPTION_KEYS.apiKeyCaller : 'issuer' in c ? OPTION_KEYS.issuerCallers : [...new Set([...OPTION_KEYS.apiKeyCaller, ...OPTION_KEYS.issuerCallers])];
  onlyKnownKeys(c, form, name);
  const policy = c as CallerPolicy;
  if (typeof policy.scopes !== 'string') throw new TypeError(`${name}.scopes must be a string of SMART scopes`);
  if (policy.sources !== undefined && policy.sources !== '*' && (!Array.isArray(policy.sources) || policy.sources.some((s) => typeof s !== 'string'))) throw new TypeError(`${name}.sources must be '*' or an array of source names`);
  checkPatient(policy.patient, `${name}.patient`);
  if (policy.operations !== undefined && (!Array.isArray(policy.operations) || policy.operations.some((o) => typeof o !== 'string' || !o.startsWith('$')))) throw new TypeError(`${name}.operations must be an array of $names`);
  booleanOption(policy.allowReaching, `${name}.allowReaching`, false);
  if (policy.rate !== undefined) checkRate(policy.rate, `${name}.rate`, OPTION_KEYS.rate);
  if ('apiKey' in c) {
    const caller = c as APIKeyCaller;
    if (typeof caller.apiKey !== 'string' || caller.apiKey.length < MIN_API_KEY_LENGTH) throw new TypeError(`${name}.apiKey must be a string of at least ${MIN_API_KEY_LENGTH} characters`);
    if (typeof caller.name !== 'string' || caller.name === '') throw new TypeError(`${name}.name must be a non-empty string`);
    checkPatientBinding(caller, `${name} (${caller.name})`);
    return Object.freeze({ ...caller });
  }
  const issuer = c as IssuerCallers;
  if (typeof issuer.issuer !== 'string' || issuer.issuer === '') throw new TypeError(`${name} needs apiKey (with name) or issuer`);
  const who = `${name} (${issuer.issuer.slice(0, 100)})`;
  if (issuer.jwks === undefined && issuer.jwksUrl === undefined) throw new TypeError(`${who} needs jwks or jwksUrl`);
  if (issuer.jwks !== undefined && (typeof issuer.jwks !== 'object' || issuer.jwks === null || !Array.isArray(issuer.jwks.keys))) throw new TypeError(`${name}.jwks must be a JWK Set ({ keys: [...] })`);
  if (issuer.jwksUrl !== undefined && (typeof issuer.jwksUrl !== 'string' || !/^https?:\/\//.test(issuer.jwksUrl) || !URL.canParse(issuer.jwksUrl))) throw new TypeError(`${name}.jwksUrl must be an http(s) URL`);
  stringOption(issuer.audience, `${name}.audience`, '', true);
  const anyAudience = booleanOption(issuer.acceptAnyAudience, `${name}.acceptAnyAudience`, false);
  if (issuer.audience === undefined && !anyAudience) {
    throw new TypeError(`${who} needs audience: the aud its tokens must hold, the facade's URL as the issuer names it (RFC 8725 §3.9); acceptAnyAudience: true turns the check off`);
  }
  if (issuer.audience !== undefined && anyAudience) throw new TypeError(`${who} sets both audience and acceptAnyAudience: true; keep one`);
  const lifetime = numberOption(issuer.maxTokenLifetimeSeconds, `${name}.maxTokenLifetimeSeconds`, DEFAULT_MAX_TOKEN_LIFETIME_SECONDS, { min: 1, integer: true, unit: 'seconds' });
  stringOption(issuer.patientSource, `${name}.patientSource`, '', true);
  if (issuer.patientSource !== undefined && issuer.sources !== '*' && !(issuer.sources ?? []).includes(issuer.patientSource)) {
    throw new TypeError(`${name}.patientSource must be one of its sources`);
  }
  checkPatientBinding(issuer, who);
  return Object.freeze({ ...issuer, maxTokenLifetimeSeconds: lifetime });
}

/**
 * A bare patient id is an id of one server: a policy with `patient` that names more than one source
 * (or `'*'`) would apply it to other people in the other sources, so it is refused.
 */
function checkPatientBinding(policy: CallerPolicy, who: string): void {
  if (policy.patient === undefined || typeof policy.patient === 'object' || policy.sources === undefined || (policy.sources !== '*' && policy.sources.length <= 1)) return;
  const many = policy.sources === '*' ? 'every source (sources: \'*\')' : `${policy.sources.length} sources`;
  throw new TypeError(
    `${who} binds one patient id to ${many}, but a patient id is local to one source (Patient/${policy.patient} of one server is another person in another): ` +
      'give this caller the one source the id belongs to (sources: ["ehr"]), or bind it by identifier ({ "identifier": "system|value" }, with the gateway\'s identity option)',
  );
}

/** A caller's `patient`: a FHIR id, or `{ identifier: 'system|value' }` (system and value not empty). */
function checkPatient(patient: unknown, name: string): void {
  if (patient === undefined) return;
  if (typeof patient === 'object' && patient !== null) {
    onlyKnownKeys(patient, PATIENT_KEYS, name);
    const { identifier } = patient as PatientIdentifier;
    if (typeof identifier !== 'string' || !/^[^|\s]+\|[^|]+$/.test(identifier)) throw new TypeError(`${name}.identifier must be "system|value" (one |, neither empty)`);
    return;
  }
  if (typeof patient !== 'string' || !/^[A-Za-z0-9\-.]{1,64}$/.test(patient)) throw new TypeError(`${name} must be a FHIR id or { "identifier": "system|value" }`);
}

/**
 * Refuses callers bound by identifier when the gateway resolves no identity, or by a system it does not
 * link (`systems`: the gateway's `identity.systems`, `undefined` without the option): such a caller
 * could be served nothing, or the wrong person, so the facade does not start.
 */
export function checkIdentityCallers(callers: readonly (APIKeyCaller | IssuerCallers)[], systems: readonly string[] | undefined, name = 'options.callers'): void {
  callers.forEach((caller, i) => {
    const patient = caller.patient;
    if (typeof patient !== 'object') return;
    const who = `${name}[${i}] (${'apiKey' in caller ? caller.name : caller.issuer})`;
    if (systems === undefined) throw new TypeError(`${who} is bound to a patient by identifier, but identity is not configured (the gateway's identity option, "identity" in fhirgate.json): set identity.systems (docs/facade.md, "Identity")`);
    const system = patient.identifier.slice(0, patient.identifier.indexOf('|'));
    if (!systems.includes(system)) throw new TypeError(`${who}.patient.identifier's system "${system.slice(0, 200)}" is not one of identity.systems (${systems.join(', ')})`);
  });
}

function checkRate(l: unknown, name: string, known: readonly string[]): void {
  checkObject(l, name);
  onlyKnownKeys(l, known, name);
  const limits = l as SourceLimits;
  if (known === OPTION_KEYS.rate && limits.perSecond === undefined) throw new TypeError(`${name}.perSecond must be a number > 0`);
  if (limits.perSecond !== undefined) numberOption(limits.perSecond, `${name}.perSecond`, 1, { above: 0 });
  if (limits.burst !== undefined) numberOption(limits.burst, `${name}.burst`, 1, { min: 1, integer: true });
  if (limits.maxInFlight !== undefined) numberOption(limits.maxInFlight, `${name}.maxInFlight`, 1, { min: 1, integer: true });
}

function checkAudit(a: AuditSinkOptions, name: string): Required<AuditSinkOptions> {
  checkObject(a, name);
  onlyKnownKeys(a, OPTION_KEYS.audit, name);
  return {
    source: a.source === undefined ? stringOption(null, `${name}.source`, '', true) : stringOption(a.source, `${name}.source`, '', true),
    batchSize: numberOption(a.batchSize, `${name}.batchSize`, 50, { min: 1, integer: true }),
    flushIntervalMs: numberOption(a.flushIntervalMs, `${name}.flushIntervalMs`, 1000, { min: 1, integer: true }),
    maxQueue: numberOption(a.maxQueue, `${name}.maxQueue`, 10_000, { min: 1, integer: true }),
  };
}
