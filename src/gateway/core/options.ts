/**
 * The options of `AsyncFHIRGateway`, their defaults and their one-time validation.
 * @module
 */
import type { EventDispatcher } from '../../events/types.js';
import { checkRetryOptions, RETRY_DEFAULTS } from '../../http/retry-policy.js';
import { POOL_DEFAULTS } from '../../http/pool-types.js';
import type { AgentPoolOptions } from '../../http/pool-types.js';
import { checkProxyOptions } from '../../http/proxy-options.js';
import type { ProxyOptions } from '../../http/proxy-options.js';
import type { RetryPolicy } from '../../http/retry-policy.js';
import { booleanOption, keysOf, numberOption, onlyKnownKeys } from '../../lib/options.js';
import { checkStore, type KeyValueStore } from '../../lib/key-value-store.js';
import { tracerOption, type TracerLike } from '../../lib/tracer.js';
import { checkFHIRVersion } from './fhir-version.js';
import { checkIdentityOptions, type IdentityOptions, type IdentitySettings } from './identity-options.js';

/**
 * The retry options of a gateway: defaults for every source; a call's `{ retry: false }` sends it once.
 * Idempotent requests (GET, PUT, DELETE, a create with `If-None-Exist`) are retried on 429, 502, 503,
 * 504 and on refused or reset connections; a plain POST only when the connection was refused.
 *
 * @example
 * ```ts
 * new AsyncFHIRGateway({ maxRetries: 4, retryOn: [429, 503], maxRetryDelayMs: 5000 });
 * ```
 */
export interface GatewayRetryOptions {
  /** `false` sends every request once (a stale keep-alive socket is still replaced once). Default `true`. */
  retry?: boolean;
  /** Retries after the first try of one request. Default 2. */
  maxRetries?: number;
  /** Statuses that are retried. Default `[429, 502, 503, 504]`. */
  retryOn?: readonly number[];
  /** Milliseconds: the backoff before retry `n` is random in `[0, min(maxRetryDelayMs, retryBaseDelayMs × 2^(n-1)))`. Default 100. */
  retryBaseDelayMs?: number;
  /** Milliseconds any one wait lasts at most, a `Retry-After` included. Default 10 000. */
  maxRetryDelayMs?: number;
}

/**
 * Options of `new AsyncFHIRGateway(options)`.
 *
 * @example
 * ```ts
 * new AsyncFHIRGateway({ maxConnections: 50, keepaliveExpiry: 10, timeoutSeconds: 15, events: false });
 * ```
 */
export interface AsyncFHIRGatewayOptions extends GatewayRetryOptions {
  /** Sockets open at once across all sources (busy and idle). Default 100. */
  maxConnections?: number;
  /** Idle keep-alive sockets kept per source origin. Default 20. */
  maxKeepaliveConnections?: number;
  /** Seconds an idle socket is kept open. Default 5. */
  keepaliveExpiry?: number;
  /** Seconds a request may take (waiting for a socket and a token included). Default 30; a source's connection-string `timeout` wins. */
  timeoutSeconds?: number;
  /** Bytes of one FHIR answer buffered at most. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Where events go. Default: the process-wide `localHandler`. */
  dispatcher?: EventDispatcher;
  /** `false` turns events off. Default `true`. */
  events?: boolean;
  /**
   * Where access tokens are cached, shared by replicas (e.g. `redisStore(client)` from `fhirgate/redis`):
   * replicas then fetch one token per source between them. Holds tokens, never a secret or a key.
   * Default: this process's memory.
   */
  tokenStore?: KeyValueStore;
  /** The FHIR version reported to clients at `GET <prefix>/metadata` (`fhirVersion`). Default `4.0.1` (R4). */
  fhirVersion?: string;
  /**
   * The outbound HTTP proxy for every source, its token endpoint and its SMART configuration (see
   * {@link ProxyOptions}; `fhirgate serve` fills it from `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`).
   * Default: none, every connection direct.
   */
  proxy?: ProxyOptions;
  /**
   * Patient identity across sources (`gw.resolvePatient()`, `patient_identifier` at the aggregate
   * endpoint): the identifier systems that link records, the sources believed for each, the cache time.
   * Default: none (`resolvePatient` throws).
   */
  identity?: IdentityOptions;
  /**
   * An OpenTelemetry `Tracer` (`trace.getTracer('fhirgate')` of the user's `@opentelemetry/api`): a client
   * span per upstream try, spans for token fetches and pool waits, and a root span `fhirgate.call` for a
   * call made outside any traced request. Inside a host request the host's tracer is used. Default: none
   * (the calls still carry a `traceparent`).
   */
  tracer?: TracerLike;
}

/** The options after validation. */
export interface GatewayOptions {
  readonly pool: AgentPoolOptions;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly dispatcher: EventDispatcher | undefined;
  readonly events: boolean;
  readonly tokenStore: KeyValueStore | undefined;
  /** The FHIR version reported at `/metadata`. */
  readonly fhirVersion: string;
  /** The retry policy in the transport's terms (milliseconds), validated once for every call. */
  readonly retry: RetryPolicy;
  /** The identity settings, or `undefined` when none were given. */
  readonly identity: IdentitySettings | undefined;
  /** The OpenTelemetry tracer, or `undefined` for none. */
  readonly tracer: TracerLike | undefined;
}

/**
 * Defaults of the gateway: the pool's (100 / 20 / 5 s), a 30 s time-out, a 10 MiB answer limit, and
 * 2 retries with a 0.1 s backoff base and waits of 10 s at most.
 *
 * @example
 * ```ts
 * GATEWAY_DEFAULTS.timeoutSeconds; // 30
 * ```
 */
export const GATEWAY_DEFAULTS = Object.freeze({
  ...POOL_DEFAULTS,
  timeoutSeconds: 30,
  maxResponseBytes: 10 * 1024 * 1024,
  maxRetries: RETRY_DEFAULTS.maxRetries,
  retryBaseDelayMs: RETRY_DEFAULTS.retryBaseDelayMs,
  maxRetryDelayMs: RETRY_DEFAULTS.maxRetryDelayMs,
});

/** The keys of {@link GatewayRetryOptions}. */
export const RETRY_OPTION_KEYS = keysOf<GatewayRetryOptions>({ retry: true, maxRetries: true, retryOn: true, retryBaseDelayMs: true, maxRetryDelayMs: true });

/** The keys `new AsyncFHIRGateway(options)` takes; any other is refused with the nearest of these. */
export const GATEWAY_OPTION_KEYS: readonly string[] = Object.freeze([
  ...keysOf<Omit<AsyncFHIRGatewayOptions, keyof GatewayRetryOptions>>({
    maxConnections: true, maxKeepaliveConnections: true, keepaliveExpiry: true, timeoutSeconds: true, maxResponseBytes: true, dispatcher: true, events: true, tokenStore: true, fhirVersion: true, proxy: true, identity: true, tracer: true,
  }),
  ...RETRY_OPTION_KEYS,
]);

/**
 * Validates and copies the options once: `TypeError`/`RangeError` naming the option, an unknown key
 * refused with the nearest of `known` (the sync gateway passes its own). The pool limits are checked
 * by the pool itself.
 */
export function checkGatewayOptions(options: AsyncFHIRGatewayOptions, known: readonly string[] = GATEWAY_OPTION_KEYS): GatewayOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  onlyKnownKeys(options, known, 'options');
  const { dispatcher } = options;
  const events = booleanOption(options.events, 'options.events', true);
  if (dispatcher !== undefined && (typeof dispatcher !== 'object' || dispatcher === null || typeof dispatcher.emit !== 'function')) {
    throw new TypeError('options.dispatcher must be an EventDispatcher (an object with emit)');
  }
  if (options.tokenStore !== undefined) checkStore(options.tokenStore, 'options.tokenStore');
  checkProxyOptions(options.proxy, 'options.proxy');
  const checked: GatewayOptions = Object.freeze({
    pool: {
      maxConnections: options.maxConnections,
      maxKeepaliveConnections: options.maxKeepaliveConnections,
      keepaliveExpiry: options.keepaliveExpiry,
      ...(options.proxy === undefined ? {} : { proxy: options.proxy }),
    },
    timeoutMs: numberOption(options.timeoutSeconds, 'options.timeoutSeconds', GATEWAY_DEFAULTS.timeoutSeconds, { above: 0, unit: 'seconds' }) * 1000,
    maxResponseBytes: numberOption(options.maxResponseBytes, 'options.maxResponseBytes', GATEWAY_DEFAULTS.maxResponseBytes, { above: 0 }),
    dispatcher,
    events,
    tokenStore: options.tokenStore,
    fhirVersion: checkFHIRVersion(options.fhirVersion),
    retry: checkRetryOptions(options),
    identity: options.identity === undefined ? undefined : checkIdentityOptions(options.identity, 'options.identity'),
    tracer: tracerOption(options.tracer, 'options.tracer'),
  });
  CHECKED.add(checked);
  return checked;
}

/** The options {@link checkGatewayOptions} made (or a thread handed over checked): the facade takes them as they are. */
const CHECKED = new WeakSet<GatewayOptions>();

/**
 * True for options that were checked already: made by {@link checkGatewayOptions}, or marked by
 * {@link checkedElsewhere}.
 */
export function isChecked(options: unknown): options is GatewayOptions {
  return typeof options === 'object' && options !== null && CHECKED.has(options as GatewayOptions);
}

/**
 * Options checked on another thread arrive as a copy (the sync gateway's worker data): marked checked,
 * so that the worker's gateway does not parse them again.
 */
export function checkedElsewhere(copy: GatewayOptions): GatewayOptions {
  const checked = Object.freeze(copy);
  CHECKED.add(checked);
  return checked;
}
