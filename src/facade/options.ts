/**
 * The options of a `FHIRFacade`: its callers and their policies, the federated base's name, page
 * tokens, rate limits and the audit sink. Checked and copied once; misuse throws at once.
 * @module
 */
import type { KeyValueStore } from '../lib/key-value-store.js';
import { checkStore } from '../lib/key-value-store.js';
import { booleanOption, checkObject, numberOption, stringOption } from '../lib/options.js';

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
  /** Holds every access to `Patient/<patient>`'s compartment. For an issuer, tokens with `patient/` scopes bring their own `patient` claim. */
  patient?: string;
  /** `$operations` it may call, by name (`$everything`). Default none. */
  operations?: readonly string[];
  /** Allow chained parameters, `_has`, `_include`, `_revinclude` inside a compartment. Default false. */
  allowReaching?: boolean;
  /** Its own rate limit, on top of the sources'. */
  rate?: RateOptions;
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
 * `jwksUrl`), `iss` equal to `issuer`, `aud` equal to `audience` when set, `exp` required.
 *
 * @example
 * ```ts
 * const idp: IssuerCallers = { issuer: 'https://idp.example.org', jwksUrl: 'https://idp.example.org/jwks.json', audience: 'https://gw.example.org/fhir', sources: '*', scopes: 'system/*.rs patient/*.rs' };
 * ```
 */
export interface IssuerCallers extends CallerPolicy {
  issuer: string;
  jwks?: { keys: readonly Record<string, unknown>[] };
  jwksUrl?: string;
  audience?: string;
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
}

/** Names a source may not have under a facade's prefix: the gateway's own routes. */
export const RESERVED_NAMES: readonly string[] = Object.freeze(['transform', 'aggregate', 'metadata', 'status']);

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Checks and copies facade options; `TypeError`/`RangeError` naming the option. */
export function checkFacadeOptions(options: FHIRFacadeOptions): CheckedFacadeOptions {
  checkObject(options, 'options');
  const callers = options.callers ?? [];
  if (!Array.isArray(callers)) throw new TypeError('options.callers must be an array');
  callers.forEach((c, i) => checkCaller(c, `options.callers[${i}]`));
  const names = callers.filter((c): c is APIKeyCaller => 'apiKey' in c).map((c) => c.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new TypeError(`options.callers: the name "${twice}" appears twice`);
  const federatedName = stringOption(options.federatedName, 'options.federatedName', 'all', true);
  if (!NAME.test(federatedName) || RESERVED_NAMES.includes(federatedName)) throw new TypeError(`options.federatedName "${federatedName}" must be a path segment other than ${RESERVED_NAMES.join(', ')}`);
  const secret = options.pageTokenSecret;
  if (secret !== undefined && (typeof secret !== 'string' || secret.length < 32)) throw new TypeError('options.pageTokenSecret must be a string of at least 32 characters');
  const limits = options.limits ?? {};
  checkObject(limits, 'options.limits');
  for (const [name, l] of Object.entries(limits)) checkLimits(l, `options.limits.${name}`);
  if (options.limitStore !== undefined) checkStore(options.limitStore, 'options.limitStore');
  return Object.freeze({
    callers: callers.map((c) => Object.freeze({ ...c })),
    openReadOnly: booleanOption(options.openReadOnly, 'options.openReadOnly', false),
    federatedName,
    pageTokenSecret: secret,
    pageTokenTtlSeconds: numberOption(options.pageTokenTtlSeconds, 'options.pageTokenTtlSeconds', 600, { min: 1, integer: true }),
    limits: { ...limits },
    limitStore: options.limitStore,
    audit: options.audit === undefined ? undefined : checkAudit(options.audit),
    observerName: stringOption(options.observerName, 'options.observerName', 'fhirgate', true),
  });
}

function checkCaller(c: APIKeyCaller | IssuerCallers, name: string): void {
  checkObject(c, name);
  if (typeof c.scopes !== 'string') throw new TypeError(`${name}.scopes must be a string of SMART scopes`);
  if (c.sources !== undefined && c.sources !== '*' && (!Array.isArray(c.sources) || c.sources.some((s) => typeof s !== 'string'))) throw new TypeError(`${name}.sources must be '*' or an array of source names`);
  if (c.patient !== undefined && (typeof c.patient !== 'string' || !/^[A-Za-z0-9\-.]{1,64}$/.test(c.patient))) throw new TypeError(`${name}.patient must be a FHIR id`);
  if (c.operations !== undefined && (!Array.isArray(c.operations) || c.operations.some((o) => typeof o !== 'string' || !o.startsWith('$')))) throw new TypeError(`${name}.operations must be an array of $names`);
  if (c.rate !== undefined) checkLimits(c.rate, `${name}.rate`);
  if ('apiKey' in c) {
    if (typeof c.apiKey !== 'string' || c.apiKey.length < 16) throw new TypeError(`${name}.apiKey must be a string of at least 16 characters`);
    if (typeof c.name !== 'string' || c.name === '') throw new TypeError(`${name}.name must be a non-empty string`);
    return;
  }
  if (typeof c.issuer !== 'string' || c.issuer === '') throw new TypeError(`${name} needs apiKey (with name) or issuer`);
  if (c.jwks === undefined && c.jwksUrl === undefined) throw new TypeError(`${name} needs jwks or jwksUrl`);
  if (c.jwks !== undefined && !Array.isArray(c.jwks.keys)) throw new TypeError(`${name}.jwks must be a JWK Set ({ keys: [...] })`);
  if (c.jwksUrl !== undefined && (typeof c.jwksUrl !== 'string' || !/^https?:\/\//.test(c.jwksUrl) || !URL.canParse(c.jwksUrl))) throw new TypeError(`${name}.jwksUrl must be an http(s) URL`);
}

function checkLimits(l: SourceLimits, name: string): void {
  checkObject(l, name);
  if (l.perSecond !== undefined) numberOption(l.perSecond, `${name}.perSecond`, 1, { above: 0 });
  if (l.burst !== undefined) numberOption(l.burst, `${name}.burst`, 1, { min: 1, integer: true });
  if (l.maxInFlight !== undefined) numberOption(l.maxInFlight, `${name}.maxInFlight`, 1, { min: 1, integer: true });
}

function checkAudit(a: AuditSinkOptions): Required<AuditSinkOptions> {
  checkObject(a, 'options.audit');
  return {
    source: a.source === undefined ? stringOption(null, 'options.audit.source', '', true) : stringOption(a.source, 'options.audit.source', '', true),
    batchSize: numberOption(a.batchSize, 'options.audit.batchSize', 50, { min: 1, integer: true }),
    flushIntervalMs: numberOption(a.flushIntervalMs, 'options.audit.flushIntervalMs', 1000, { min: 1, integer: true }),
    maxQueue: numberOption(a.maxQueue, 'options.audit.maxQueue', 10_000, { min: 1, integer: true }),
  };
}
