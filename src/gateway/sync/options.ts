/**
 * The options of `FHIRGateway` and their one-time validation. The sync gateway has no pool options:
 * its worker keeps one keep-alive connection per source.
 * @module
 */
import type { EventDispatcher } from '../../events/types.js';
import { checkGatewayOptions, RETRY_OPTION_KEYS, type GatewayOptions, type GatewayRetryOptions } from '../core/options.js';
import { keysOf, numberOption } from '../../lib/options.js';

/**
 * Options of `new FHIRGateway(options)`.
 *
 * @example
 * ```ts
 * const gw = new FHIRGateway({ timeoutSeconds: 10, dispatcher: new LocalEventDispatcher() });
 * ```
 */
export interface FHIRGatewayOptions extends GatewayRetryOptions {
  /** Seconds a request may take (a token fetch included). Default 30; a source's connection-string `timeout` wins. */
  timeoutSeconds?: number;
  /** Bytes of one FHIR answer buffered at most. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Where events go, on the calling thread. Default: the process-wide `localHandler`. */
  dispatcher?: EventDispatcher;
  /** `false` turns events off. Default `true`. */
  events?: boolean;
  /** The FHIR version reported to clients at `GET <prefix>/metadata` (`fhirVersion`). Default `4.0.1` (R4). */
  fhirVersion?: string;
  /**
   * How many `pages()`/`searchAll()` iterators may be open at once (started and neither finished nor
   * returned), an integer >= 1. Opening one more closes the least recently used (stepped) one: its
   * next step throws `ERR_CLOSED`. Iterators dropped without being finished are also closed when they
   * are garbage-collected. Default 64.
   */
  maxOpenCursors?: number;
  /**
   * The origins (`http://127.0.0.1:8000`) of servers that run on the thread making the calls, such
   * as an embedded sandbox or a test server. A sync call blocks its thread until it is answered, so a
   * call to one of them (its FHIR base or its token endpoint) is refused at once with `ERR_DEADLOCK`
   * instead of hanging until its time-out; `localhost`, `127.0.0.1` and `[::1]` count as one host.
   * Read at each call: pass a `Set` and add to it to name servers started later. Default: none.
   *
   * @example
   * ```ts
   * const sandbox = await startSandbox();
   * const gw = new FHIRGateway({ sameThreadOrigins: [sandbox.origin] });
   * ```
   */
  sameThreadOrigins?: Iterable<string>;
}

/** What the sync gateway's worker is started with (plain data: it crosses the thread boundary). */
export interface GatewayWorkerData {
  /** The gateway options, checked on the calling thread: the worker's `AsyncFHIRGateway` takes them as they are. */
  readonly gateway: GatewayOptions;
  /** The cap on open iterators. */
  readonly maxOpenCursors: number;
}

/** The options after validation. */
export interface SyncGatewayOptions {
  /** What the worker is started with. */
  readonly worker: GatewayWorkerData;
  /** The gateway-wide request time-out, in milliseconds. */
  readonly timeoutMs: number;
  readonly dispatcher: EventDispatcher | undefined;
  readonly events: boolean;
  /** The FHIR version reported at `/metadata`. */
  readonly fhirVersion: string;
  /** The caller's own iterable, read at each call (see `FHIRGatewayOptions.sameThreadOrigins`). */
  readonly sameThreadOrigins: Iterable<string>;
}

/** Default of `maxOpenCursors`. */
const DEFAULT_MAX_OPEN_CURSORS = 64;

/** Options of `AsyncFHIRGateway` that the sync gateway refuses rather than silently ignores. */
const POOL_OPTIONS = ['maxConnections', 'maxKeepaliveConnections', 'keepaliveExpiry'] as const;

/** The keys `new FHIRGateway(options)` takes; any other is refused with the nearest of these. */
export const SYNC_GATEWAY_OPTION_KEYS: readonly string[] = Object.freeze([
  ...keysOf<Omit<FHIRGatewayOptions, keyof GatewayRetryOptions>>({
    timeoutSeconds: true, maxResponseBytes: true, dispatcher: true, events: true, fhirVersion: true, maxOpenCursors: true, sameThreadOrigins: true,
  }),
  ...RETRY_OPTION_KEYS,
]);

/** Options of `AsyncFHIRGateway` the sync gateway does not have, and what to use instead. */
const ASYNC_ONLY: Readonly<Record<string, string>> = {
  ...Object.fromEntries(POOL_OPTIONS.map((name) => [name, 'FHIRGateway has no pool options (one connection per source); use AsyncFHIRGateway for a pool'])),
  identity: 'FHIRGateway does not resolve patients across sources; use AsyncFHIRGateway for identity',
};

/**
 * Validates and copies the options once, with the same checks and messages as `AsyncFHIRGateway`;
 * a pool option or `identity` is a `TypeError`.
 */
export function checkSyncOptions(options: FHIRGatewayOptions): SyncGatewayOptions {
  for (const [name, instead] of Object.entries(ASYNC_ONLY)) {
    if (typeof options === 'object' && options !== null && (options as Record<string, unknown>)[name] !== undefined) throw new TypeError(`options.${name}: ${instead}`);
  }
  const checked = checkGatewayOptions(options, SYNC_GATEWAY_OPTION_KEYS);
  // The worker's AsyncFHIRGateway takes the checked options as they are (they cross the thread as a
  // copy); the dispatcher stays on this thread, where the events are emitted.
  const gateway: GatewayOptions = { ...checked, dispatcher: undefined };
  const { sameThreadOrigins = [] } = options;
  if (typeof (sameThreadOrigins as Partial<Iterable<string>> | null)?.[Symbol.iterator] !== 'function' || typeof sameThreadOrigins === 'string') {
    throw new TypeError('options.sameThreadOrigins must be an iterable of origins such as [sandbox.origin]');
  }
  const maxOpenCursors = numberOption(options.maxOpenCursors, 'options.maxOpenCursors', DEFAULT_MAX_OPEN_CURSORS, { integer: true, min: 1 });
  return Object.freeze({
    worker: Object.freeze({
      gateway,
      maxOpenCursors,
    }),
    timeoutMs: checked.timeoutMs,
    dispatcher: checked.dispatcher,
    events: checked.events,
    fhirVersion: checked.fhirVersion,
    sameThreadOrigins,
  });
}

/**
 * Options of `FHIRGateway.pages()` and `searchAll()`: the limits of the async gateway's, without a
 * signal (a blocking call cannot be aborted).
 *
 * @example
 * ```ts
 * const options: SyncPagingOptions = { maxPages: 10, maxResources: 500 };
 * ```
 */
export interface SyncPagingOptions {
  /** Pages fetched at most (the first included), a positive integer. Default: no limit. */
  maxPages?: number;
  /** Resources yielded at most by `searchAll`, a positive integer. Default: no limit. */
  maxResources?: number;
}
