/**
 * What the dispatchers onto external buses share: local handlers still work, events go through a
 * bounded {@link DeliveryQueue}, and the counts show in `/gateway/status`.
 * @module
 */
import { cloudEvent, type CloudEvent } from './cloud-event.js';
import { logDropToStderr, oncePerReason, type DropLogger } from './delivery-drop.js';
import { DeliveryQueue, type DeliveryCounts, type DeliveryVerdict } from './delivery-queue.js';
import { LocalEventDispatcher } from './local-dispatcher.js';
import type { EventDispatcher, EventHandler, EventPayload, Unregister } from './types.js';
import { keysOf, numberOption, onlyKnownKeys } from '../lib/options.js';

/** Options every queued dispatcher takes. */
export interface QueuedDispatcherOptions {
  /** The CloudEvents `source` of every event: a URI-reference naming this application (`urn:fhirgate:gw-1`, `/fhirgate/eu-1`). Required. */
  source: string;
  /** Events waiting at most; an event emitted when the queue is full is dropped (and counted). Default 10 000. */
  maxQueue?: number;
  /** Time `drain()` waits for the queue to empty, in ms (what is left keeps being delivered until `close()`). Default 5000. */
  drainTimeoutMs?: number;
  /**
   * Told the first time each reason drops events (a full queue, a sink that refuses them for good, a
   * delivery that can never succeed); later drops are only counted. Default: one JSON line on stderr.
   */
  dropLogger?: DropLogger;
}

/** The keys of {@link QueuedDispatcherOptions}, which every queued dispatcher's own keys extend. */
export const QUEUED_OPTION_KEYS = keysOf<QueuedDispatcherOptions>({ source: true, maxQueue: true, drainTimeoutMs: true, dropLogger: true });

/** The settings a subclass chooses for its queue, after validating its own options. */
export interface QueueShape {
  readonly concurrency: number;
  readonly batchSize: number;
  readonly retryBaseDelayMs: number;
  readonly maxRetryDelayMs: number;
  /** Give up a batch this long after its first attempt, in ms. Default: never while open. */
  readonly retryForMs?: number;
}

/**
 * The base of `CloudEventsDispatcher` and the NATS dispatcher: `emit` wraps the event as a CloudEvent
 * and queues it (never blocking, never throwing), and also calls the handlers registered here, so that
 * local audit handlers keep working next to the bus. Subclasses implement `deliver`.
 */
export abstract class QueuedDispatcher implements EventDispatcher {
  readonly #local = new LocalEventDispatcher();
  readonly #queue: DeliveryQueue<CloudEvent>;
  readonly #source: string;
  readonly #drainTimeoutMs: number;

  protected constructor(owner: string, options: QueuedDispatcherOptions, shape: QueueShape, known: readonly string[]) {
    if (typeof options !== 'object' || options === null) throw new TypeError(`${owner}: options must be an object`);
    onlyKnownKeys(options, known, `${owner}: options`);
    if (typeof options.source !== 'string' || options.source === '') throw new TypeError(`${owner}: options.source must be a non-empty string (a URI-reference)`);
    this.#source = options.source;
    const maxQueue = numberOption(options.maxQueue, `${owner}: options.maxQueue`, 10_000, { integer: true, min: 1 });
    this.#drainTimeoutMs = numberOption(options.drainTimeoutMs, `${owner}: options.drainTimeoutMs`, 5000, { integer: true, min: 0 });
    const { dropLogger = logDropToStderr } = options;
    if (typeof dropLogger !== 'function') throw new TypeError(`${owner}: options.dropLogger must be a function`);
    this.#queue = new DeliveryQueue<CloudEvent>({ maxQueue, ...shape }, (batch) => this.deliver(batch), oncePerReason(owner, dropLogger));
  }

  /** Sends one batch (of `batchSize` events at most). `'retry'` (or a throw) tries it again after a back-off. */
  protected abstract deliver(batch: CloudEvent[]): Promise<DeliveryVerdict> | DeliveryVerdict;

  /** Why the bus cannot carry an event of this name (it is dropped and counted), or `undefined`: it can. */
  protected refuses(_eventName: string): string | undefined {
    return undefined;
  }

  /** Queues the event for the bus and calls the local handlers. Never throws, never waits. */
  emit(eventName: string, payload: EventPayload): void {
    if (typeof eventName !== 'string' || eventName === '') return;
    const refused = this.refuses(eventName);
    if (refused === undefined) this.#queue.push(cloudEvent(eventName, payload, this.#source));
    else this.#queue.reject(refused);
    this.#local.emit(eventName, payload);
  }

  /** Registers a local handler (as `LocalEventDispatcher.register`). */
  register(pattern: string, handler: EventHandler): Unregister {
    return this.#local.register(pattern, handler);
  }

  /** Waits for local handlers and for the queue to empty, at most `drainTimeoutMs`. Never rejects. */
  async drain(): Promise<void> {
    await Promise.all([this.#local.drain(), this.#queue.idle(this.#drainTimeoutMs)]);
  }

  /** The counts under `events` in `/gateway/status` and in `/metrics`; a subclass names them for what its bus confirms. */
  status(): Record<string, number> {
    return this.counts();
  }

  /** The queue's `{ sent, retried, dropped, queued }`: `sent` is what `deliver` called sent. */
  protected counts(): DeliveryCounts {
    return this.#queue.counts();
  }

  /** Drains, then drops (and counts) what is still undelivered. Idempotent. */
  async close(): Promise<void> {
    await this.drain();
    this.#queue.close();
  }
}
