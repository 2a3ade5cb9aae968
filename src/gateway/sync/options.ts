/**
 * The options of `FHIRGateway` and their one-time validation. The sync gateway has no pool options:
 * its worker keeps one keep-alive connection per source.
 * @module
 */
import type { EventDispatcher } from '../../events/types.js';
import { checkGatewayOptions, type GatewayRetryOptions } from '../options.js';

/**
 * Options of `new FHIRGateway(options)`.
 *
 * @example
 * ```ts
 * const gw = new FHIRGateway({ timeout: 10, dispatcher: new LocalEventDispatcher() });
 * ```
 */
export interface FHIRGatewayOptions extends GatewayRetryOptions {
  /** Seconds a request may take (a token fetch included). Default 30; a source's connection-string `timeout` wins. */
  timeout?: number;
  /** Bytes of one FHIR answer buffered at most. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Where events go, on the calling thread. Default: the process-wide `localHandler`. */
  dispatcher?: EventDispatcher;
  /** `false` turns events off. Default `true`. */
  events?: boolean;
}

/**
 * The options after validation.
 *
 * @example
 * ```ts
 * const { worker, timeoutMs } = checkSyncOptions({ timeout: 10 }); // { timeout: 10 }, 10_000
 * ```
 */
export interface SyncGatewayOptions {
  /** What the worker's `AsyncFHIRGateway` is built with. */
  readonly worker: Readonly<Pick<FHIRGatewayOptions, 'timeout' | 'maxResponseBytes' | keyof GatewayRetryOptions>>;
  /** The gateway-wide request time-out, in milliseconds. */
  readonly timeoutMs: number;
  readonly dispatcher: EventDispatcher | undefined;
  readonly events: boolean;
}

/** Options of `AsyncFHIRGateway` that the sync gateway refuses rather than silently ignores. */
const POOL_OPTIONS = ['maxConnections', 'maxKeepaliveConnections', 'keepaliveExpiry'] as const;

/**
 * Validates and copies the options once, with the same checks and messages as `AsyncFHIRGateway`;
 * a pool option is a `TypeError`.
 *
 * @example
 * ```ts
 * const checked = checkSyncOptions({ timeout: 10, events: false });
 * ```
 */
export function checkSyncOptions(options: FHIRGatewayOptions): SyncGatewayOptions {
  const checked = checkGatewayOptions(options);
  for (const name of POOL_OPTIONS) {
    if ((options as Record<string, unknown>)[name] !== undefined) {
      throw new TypeError(`options.${name}: FHIRGateway has no pool options (one connection per source); use AsyncFHIRGateway for a pool`);
    }
  }
  // What the worker's AsyncFHIRGateway needs, as plain data (it crosses the thread boundary); it
  // validates them again with the same checks.
  const { timeout, maxResponseBytes, retry, maxRetries, retryOn, retryBaseDelay, maxRetryDelay } = options;
  const worker = { timeout, maxResponseBytes, retry, maxRetries, retryOn: retryOn && [...retryOn], retryBaseDelay, maxRetryDelay };
  return Object.freeze({
    worker: Object.freeze(Object.fromEntries(Object.entries(worker).filter(([, v]) => v !== undefined))),
    timeoutMs: checked.timeoutMs,
    dispatcher: checked.dispatcher,
    events: checked.events,
  });
}
