/**
 * The shapes of CDS Hooks 2.0 as fhirgate's CDS service sees them: requests, cards, feedback, and the
 * registration options of a service.
 * @module
 */
import type { ProxyOptions } from '../http/proxy-options.js';
import type { JsonWebKey } from 'node:crypto';
import type { EventDispatcher } from '../events/types.js';
import type { Logger } from '../mount/index.js';
import type { KeyValueStore } from '../lib/key-value-store.js';
import { keysOf } from '../lib/options.js';

/** A JSON object as parsed from a request body. */
export type JSONObject = Record<string, unknown>;

/**
 * The `fhirAuthorization` member of a CDS Hooks request: a bearer token for `fhirServer`.
 *
 * @example
 * ```ts
 * const auth: FHIRAuthorization = { access_token: 'abc', token_type: 'Bearer', expires_in: 300, scope: 'patient/*.read', subject: 'cds-service' };
 * ```
 */
export interface FHIRAuthorization {
  access_token: string;
  token_type: 'Bearer';
  /** Lifetime of the token, in seconds. */
  expires_in: number;
  scope: string;
  subject: string;
  patient?: string;
}

/**
 * A validated CDS Hooks request, as a handler receives it (prefetch filled in: a key is a resource, or
 * `null` when the data does not exist).
 *
 * @example
 * ```ts
 * cds.hook('patient-view', { id: 'greet', description: 'Says hello' }, (req: CDSHookRequest) => {
 *   const patient = req.prefetch.patient;
 *   return { cards: [] };
 * });
 * ```
 */
export interface CDSHookRequest {
  hook: string;
  hookInstance: string;
  fhirServer?: string;
  fhirAuthorization?: FHIRAuthorization;
  context: JSONObject;
  prefetch: Record<string, JSONObject | null>;
}

/**
 * A card `source`.
 *
 * @example
 * ```ts
 * const source: CDSSource = { label: 'Acme guidelines', url: 'https://acme.example/guidelines' };
 * ```
 */
export interface CDSSource {
  label: string;
  url?: string;
  icon?: string;
  topic?: Coding;
}

/**
 * A FHIR Coding (as used by `overrideReasons` and `source.topic`).
 *
 * @example
 * ```ts
 * const reason: Coding = { system: 'http://example.org/reasons', code: 'pt-refused', display: 'Patient refused' };
 * ```
 */
export interface Coding {
  system?: string;
  code?: string;
  display?: string;
}

/**
 * A suggested action on a resource.
 *
 * @example
 * ```ts
 * const action: CDSAction = { type: 'delete', description: 'Cancel the duplicate order', resourceId: ['ServiceRequest/1'] };
 * ```
 */
export interface CDSAction {
  type: 'create' | 'update' | 'delete';
  description: string;
  resource?: JSONObject;
  resourceId?: string | string[];
}

/**
 * A suggestion of a card.
 *
 * @example
 * ```ts
 * const s: CDSSuggestion = { label: 'Order an A1c', actions: [{ type: 'create', description: 'A1c', resource: { resourceType: 'ServiceRequest', status: 'draft', intent: 'proposal', subject: { reference: 'Patient/123' } } }] };
 * ```
 */
export interface CDSSuggestion {
  label: string;
  uuid?: string;
  isRecommended?: boolean;
  actions?: CDSAction[];
}

/**
 * A link of a card.
 *
 * @example
 * ```ts
 * const link: CDSLink = { label: 'Open the app', url: 'https://app.example/launch', type: 'smart', appContext: 'x=1' };
 * ```
 */
export interface CDSLink {
  label: string;
  url: string;
  type: 'absolute' | 'smart';
  appContext?: string;
}

/**
 * A CDS Hooks card. `uuid` is added when absent.
 *
 * @example
 * ```ts
 * const card: CDSCard = { summary: 'Flu shot due', indicator: 'info', source: { label: 'Immunization rules' } };
 * ```
 */
export interface CDSCard {
  uuid?: string;
  summary: string;
  detail?: string;
  indicator: 'info' | 'warning' | 'critical';
  source: CDSSource;
  suggestions?: CDSSuggestion[];
  selectionBehavior?: 'at-most-one' | 'any';
  overrideReasons?: Coding[];
  links?: CDSLink[];
}

/**
 * What a service handler returns: cards (maybe none) and optional system actions.
 *
 * @example
 * ```ts
 * const none: CDSResponse = { cards: [] };
 * ```
 */
export interface CDSResponse {
  cards: CDSCard[];
  systemActions?: CDSAction[];
}

/**
 * One feedback item sent by a CDS client after it showed a card.
 *
 * @example
 * ```ts
 * const item: CDSFeedback = { card: '5f3c1a2e-…', outcome: 'accepted', acceptedSuggestions: [{ id: 'order-a1c' }], outcomeTimestamp: '2026-01-01T10:00:00Z' };
 * ```
 */
export interface CDSFeedback {
  card: string;
  outcome: 'accepted' | 'overridden';
  acceptedSuggestions?: { id: string }[];
  overrideReason?: { reason?: Coding; userComment?: string };
  outcomeTimestamp: string;
}

/** Who called, once the client JWT is verified. */
export interface CDSClient {
  /** The `iss` claim. */
  issuer: string;
  /** The `sub` claim, when present. */
  subject?: string;
  /** The `tenant` claim, when present. */
  tenant?: string;
}

/**
 * What a handler gets besides the request.
 *
 * @example
 * ```ts
 * cds.hook('patient-view', { id: 'x', description: 'x' }, (req, ctx) => { ctx.log.info('called', { service: ctx.serviceId }); return { cards: [] }; });
 * ```
 */
export interface CDSHandlerContext {
  serviceId: string;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
  log: Logger;
  /** The verified caller, when client authentication is on. */
  client?: CDSClient;
}

/**
 * A service handler.
 *
 * @example
 * ```ts
 * const handler: CDSHandler = async (req) => ({ cards: [{ summary: 'Hi', indicator: 'info', source: { label: 'me' } }] });
 * ```
 */
export type CDSHandler = (request: CDSHookRequest, context: CDSHandlerContext) => CDSResponse | Promise<CDSResponse>;

/**
 * A feedback handler.
 *
 * @example
 * ```ts
 * const onFeedback: CDSFeedbackHandler = (items) => { for (const i of items) audit(i.card, i.outcome); };
 * ```
 */
export type CDSFeedbackHandler = (feedback: CDSFeedback[], context: CDSHandlerContext) => void | Promise<void>;

/**
 * One trusted CDS client issuer.
 *
 * @example
 * ```ts
 * const ehr: TrustedIssuer = { issuer: 'https://ehr.example.org', jwksUrls: ['https://ehr.example.org/jwks.json'] };
 * ```
 */
export interface TrustedIssuer {
  /** The exact `iss` value. */
  issuer: string;
  /** Static keys of the issuer. */
  jwks?: { keys: JsonWebKey[] };
  /** JWKS URLs the issuer may name in `jku` (exact match); also tried, in order, when a token has no `jku`. */
  jwksUrls?: string[];
}

/**
 * Client JWT verification options.
 *
 * @example
 * ```ts
 * const auth: ClientAuthOptions = { issuers: [{ issuer: 'https://ehr.example.org', jwksUrls: ['https://ehr.example.org/jwks.json'] }] };
 * ```
 */
export interface ClientAuthOptions {
  /** The allowlist of issuers. At least one. */
  issuers: TrustedIssuer[];
  /** Accepted `alg` values, among RS256/RS384/RS512/ES256/ES384/ES512. Default `['RS384', 'ES384']`. */
  algorithms?: string[];
  /** Leeway for `exp` and `iat`, in seconds. Default 60. */
  clockToleranceSeconds?: number;
  /** Refuse tokens whose `exp` lies further ahead than this, in seconds. Default 300. */
  maxLifetimeSeconds?: number;
  /** How long a fetched JWKS is trusted, in seconds. Default 300. */
  jwksCacheSeconds?: number;
  /** Minimum time between two fetches of one JWKS URL triggered by an unknown `kid`, in seconds. Default 30. */
  jwksCooldownSeconds?: number;
  /** Time-out of one JWKS fetch, in milliseconds. Default 5000. */
  jwksTimeoutMs?: number;
  /**
   * How many `jti` values are remembered against replay, each until its token expires (plus the clock
   * tolerance). An unexpired value is never forgotten: when the cache is full of them, a new token is
   * refused (401, "replay cache full" in the log) until some expire. Size it above the peak number of
   * calls per `maxLifetimeSeconds + clockToleranceSeconds` (100,000 covers about 280 calls/s with the
   * default 360 s). Memory: about 210 bytes per entry on 64-bit Node (for a 60-character issuer plus
   * `jti`), so about 21 MB when the default cache is full. Default 100000.
   */
  replayCacheSize?: number;
  /**
   * A store shared by every replica (e.g. `redisStore(client)` from `fhirgate/redis`): a `jti` accepted
   * by one replica is then refused by all. Replaces the in-memory cache (and `replayCacheSize`). When
   * the store rejects (`redisStore` does after its `commandTimeoutMs`), the call is refused: 503
   * `ERR_STORE_UNAVAILABLE` with `Retry-After: 1`, "CDS replay store unavailable" in the log. Entries
   * must outlive `maxLifetimeSeconds + clockToleranceSeconds`: a store that forgets them sooner (a
   * Redis restart without persistence) lets a token be replayed until it expires. Default none.
   */
  replayStore?: KeyValueStore;
}

/**
 * Options of a {@link CDSServiceDefinition} and of `new CDSHooksService()`.
 *
 * @example
 * ```ts
 * const cds = new CDSHooksService({ bodyLimit: 2 ** 20, auth: { issuers: [{ issuer: 'ehr', jwksUrls: ['https://ehr.example.org/jwks.json'] }] } });
 * ```
 */
export interface CDSHooksServiceOptions {
  /** Where `cdshooks.*` events go until a host sets its own. Default: the process-wide `localHandler`. */
  dispatcher?: EventDispatcher;
  /** Client JWT verification for every service (a service may override it). Default: off. */
  auth?: ClientAuthOptions;
  /** Largest accepted request body, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Time-out of one prefetch fetch, in milliseconds. Default 10000. */
  prefetchTimeoutMs?: number;
  /** Largest accepted prefetch answer, in bytes. Default 10 MiB. */
  prefetchMaxBytes?: number;
  /** Allow a plain-http `fhirServer` on any host (default: only on loopback). */
  allowInsecureFhirServer?: boolean;
  /**
   * The FHIR servers prefetch data may be fetched from: base URLs (`https://ehr.example.org/fhir`) or
   * origins (`https://ehr.example.org`), absolute http(s) URLs without credentials, query or fragment.
   * A URL matches an entry with the same origin whose path is a prefix of its own on a path-segment
   * boundary (`https://ehr.example.org/fhir` does not allow `https://ehr.example.org/fhirx` or
   * `https://ehr.example.org/other`). A `fhirServer` outside the list is never contacted: the missing
   * prefetch is unobtainable (412, `field: 'fhirServer'`). Checked at construction (`TypeError`).
   *
   * Default: none, and then a service fetches from whatever `fhirServer` a caller names, sending it the
   * caller's `fhirAuthorization` token, as long as its host is and resolves to a public address: a host
   * on loopback, a private (RFC 1918), CGNAT, link-local, unique-local, unspecified, multicast or reserved
   * address, IPv4-mapped forms included, is never contacted unless this list names it (the address is
   * checked when the socket connects, so DNS cannot change it between check and use). Anyone who can
   * call the service can still make this server send GET requests to any public https URL: set the list
   * in production.
   */
  fhirServers?: readonly string[];
  /**
   * The outbound HTTP proxy of prefetch fetches and of the clients' JWKS fetches (see `ProxyOptions`:
   * `{ https, http, noProxy }`). Through a proxy the address a host resolves to cannot be checked here:
   * prefetch through it then needs `fhirServers` (a `fhirServer` it would reach through the proxy is
   * otherwise never contacted). Default: none, every connection direct.
   */
  proxy?: ProxyOptions;
}

/**
 * How a service is registered: its discovery entry plus fhirgate extras.
 *
 * @example
 * ```ts
 * const def: CDSServiceDefinition = {
 *   id: 'patient-greeting', title: 'Greeting', description: 'Greets the patient',
 *   prefetch: { patient: 'Patient/{{context.patientId}}' },
 * };
 * ```
 */
export interface CDSServiceDefinition {
  /** Unique id; the last path segment of the service URL. */
  id: string;
  title?: string;
  description: string;
  /** Prefetch templates by key, relative to `fhirServer`. */
  prefetch?: Record<string, string>;
  usageRequirements?: string;
  /** Called with validated feedback for this service. */
  feedback?: CDSFeedbackHandler;
  /** Client JWT verification for this service: options, or `false` to turn the service-wide one off. */
  auth?: ClientAuthOptions | false;
  /**
   * The FHIR servers this service may fetch prefetch data from; replaces the service-wide
   * `fhirServers` of `new CDSHooksService()` (same syntax and matching). Default: the service-wide list.
   */
  fhirServers?: readonly string[];
}

/**
 * The keys of the CDS option objects: `new CDSHooksService(options)`, a service definition, client
 * authentication and one trusted issuer. Any other is refused with the nearest of these. (A `jwks` is
 * a JWK Set, whose other members RFC 7517 §5 says to ignore: it is not checked.)
 */
export const CDS_OPTION_KEYS = Object.freeze({
  service: keysOf<CDSHooksServiceOptions>({ dispatcher: true, auth: true, bodyLimit: true, prefetchTimeoutMs: true, prefetchMaxBytes: true, allowInsecureFhirServer: true, fhirServers: true, proxy: true }),
  definition: keysOf<CDSServiceDefinition>({ id: true, title: true, description: true, prefetch: true, usageRequirements: true, feedback: true, auth: true, fhirServers: true }),
  auth: keysOf<ClientAuthOptions>({
    issuers: true, algorithms: true, clockToleranceSeconds: true, maxLifetimeSeconds: true, jwksCacheSeconds: true, jwksCooldownSeconds: true, jwksTimeoutMs: true, replayCacheSize: true, replayStore: true,
  }),
  issuer: keysOf<TrustedIssuer>({ issuer: true, jwks: true, jwksUrls: true }),
});
