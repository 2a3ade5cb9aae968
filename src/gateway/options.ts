/**
 * The options of `AsyncFHIRGateway`, their defaults and their one-time validation.
 * @module
 */
import type { EventDispatcher } from '../events/types.js';
import { POOL_DEFAULTS } from '../http/index.js';

/**
 * Options of `new AsyncFHIRGateway(options)`.
 *
 * @example
 * ```ts
 * new AsyncFHIRGateway({ maxConnections: 50, keepaliveExpiry: 10, timeout: 15, events: false });
 * ```
 */
export interface AsyncFHIRGatewayOptions {
  /** Sockets open at once across all sources (busy and idle). Default 100. */
  maxConnections?: number;
  /** Idle keep-alive sockets kept per source origin. Default 20. */
  maxKeepaliveConnections?: number;
  /** Seconds an idle socket is kept open. Default 5. */
  keepaliveExpiry?: number;
  /** Seconds a request may take (waiting for a socket and a token included). Default 30; a source's connection-string `timeout` wins. */
  timeout?: number;
  /** Bytes of one FHIR answer buffered at most. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Where events go. Default: the process-wide `localHandler`. */
  dispatcher?: EventDispatcher;
  /** `false` turns events off. Default `true`. */
  events?: boolean;
}

/**
 * The options after validation.
 *
 * @example
 * ```ts
 * const { timeoutMs, events } = checkGatewayOptions({ timeout: 10 }); // 10000, true
 * ```
 */
export interface GatewayOptions {
  readonly pool: { maxConnections?: number; maxKeepaliveConnections?: number; keepaliveExpiry?: number };
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly dispatcher: EventDispatcher | undefined;
  readonly events: boolean;
}

/**
 * Defaults of the gateway: the pool's (100 / 20 / 5 s), a 30 s time-out and a 10 MiB answer limit.
 *
 * @example
 * ```ts
 * GATEWAY_DEFAULTS.timeout; // 30
 * ```
 */
export const GATEWAY_DEFAULTS = Object.freeze({ ...POOL_DEFAULTS, timeout: 30, maxResponseBytes: 10 * 1024 * 1024 });

/**
 * Validates and copies the options once: `TypeError`/`RangeError` naming the option. The pool limits
 * are checked by the pool itself.
 *
 * @example
 * ```ts
 * const checked = checkGatewayOptions({ timeout: 10, events: false });
 * ```
 */
export function checkGatewayOptions(options: AsyncFHIRGatewayOptions): GatewayOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const { dispatcher, events = true } = options;
  if (typeof events !== 'boolean') throw new TypeError('options.events must be a boolean');
  if (dispatcher !== undefined && (typeof dispatcher !== 'object' || dispatcher === null || typeof dispatcher.emit !== 'function')) {
    throw new TypeError('options.dispatcher must be an EventDispatcher (an object with emit)');
  }
  return Object.freeze({
    pool: {
      maxConnections: options.maxConnections,
      maxKeepaliveConnections: options.maxKeepaliveConnections,
      keepaliveExpiry: options.keepaliveExpiry,
    },
    timeoutMs: positive(options.timeout, 'timeout', GATEWAY_DEFAULTS.timeout) * 1000,
    maxResponseBytes: positive(options.maxResponseBytes, 'maxResponseBytes', GATEWAY_DEFAULTS.maxResponseBytes),
    dispatcher,
    events,
  });
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) throw new TypeError(`options.${name} must be a number`);
  if (value <= 0 || !Number.isFinite(value)) throw new RangeError(`options.${name} must be a positive number`);
  return value;
}
