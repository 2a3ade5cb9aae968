/**
 * `natsDispatcher`: fhirgate events published to NATS over the user's own connection from the `nats`
 * npm package, one subject per event name: core NATS (at most once) or JetStream (acknowledged).
 * @module
 */
import type { CloudEvent } from '../events/cloud-event.js';
import type { DeliveryCounts, DeliveryVerdict } from '../events/delivery-queue.js';
import { QUEUED_OPTION_KEYS, QueuedDispatcher, type QueuedDispatcherOptions } from '../events/queued-dispatcher.js';
import { keysOf, numberOption } from '../lib/options.js';

/**
 * The part of a JetStream client (`nc.jetstream()` in `nats` v2) fhirgate uses: `publish` with a
 * message id and a time-out, answered by the stream's acknowledgement.
 *
 * @example
 * ```ts
 * import { connect } from 'nats';
 * import type { JetStreamPublisher } from 'fhirgate/nats';
 * const js: JetStreamPublisher = (await connect({ servers: 'nats://127.0.0.1:4222' })).jetstream();
 * ```
 */
export interface JetStreamPublisher {
  publish(subject: string, data?: Uint8Array, options?: { msgID?: string; timeout?: number }): Promise<{ stream: string; seq: number; duplicate: boolean }>;
}

/**
 * The part of a `NatsConnection` (`nats` v2, from `connect()`) fhirgate uses: `publish(subject, data)`
 * and `flush()`; `jetstream()` for `mode: 'jetstream'`; `isClosed()` when present.
 *
 * @example
 * ```ts
 * import { connect } from 'nats';
 * import type { NatsPublisher } from 'fhirgate/nats';
 * const nc: NatsPublisher = await connect({ servers: 'nats://127.0.0.1:4222' });
 * ```
 */
export interface NatsPublisher {
  publish(subject: string, data?: Uint8Array): void;
  flush(): Promise<void>;
  jetstream?(): JetStreamPublisher;
  isClosed?(): boolean;
}

/**
 * How events reach NATS: `'core'` publishes and forgets (at most once: what a server restart or a
 * disconnected subscriber misses is lost, uncounted); `'jetstream'` publishes to a stream and waits
 * for its acknowledgement, retrying with the event id as `msgID` so that the stream drops duplicates.
 *
 * @example
 * ```ts
 * const mode: NatsMode = 'jetstream';
 * ```
 */
export type NatsMode = 'core' | 'jetstream';

/**
 * Options of {@link natsDispatcher}.
 *
 * @example
 * ```ts
 * const options: NatsDispatcherOptions = { source: 'urn:fhirgate:eu-1', mode: 'jetstream', retryForMs: 60_000 };
 * ```
 */
export interface NatsDispatcherOptions extends QueuedDispatcherOptions {
  /** Default `'core'`. `'jetstream'` needs a stream whose subjects cover the event names (`fhir.>`, `cdshooks.>`, `notereader.>`). */
  mode?: NatsMode;
  /** Core: events handed to the connection in one turn, at most (the client buffers and writes them). Default 256. */
  batchSize?: number;
  /** JetStream: publishes waiting for their acknowledgement at once. Default 64. */
  concurrency?: number;
  /** JetStream: time the stream has to acknowledge one publish, in ms, before it is tried again. Default 5000. */
  ackTimeoutMs?: number;
  /**
   * JetStream: how long an event is retried from its first publish, in ms, before it is dropped (and
   * counted, and logged). Keep it below the stream's `duplicate_window` (2 minutes by default), or a
   * late retry of an event that was stored unacknowledged is stored twice. Default 60000.
   */
  retryForMs?: number;
  /** JetStream: first retry back-off, in ms (doubling, random in [d/2, d]). Default 100. */
  retryBaseDelayMs?: number;
  /** JetStream: longest retry back-off, in ms. Default 2000. */
  maxRetryDelayMs?: number;
}

/**
 * What `status()` counts in core mode: `published` (handed to the client: core NATS confirms nothing,
 * so this is not a count of deliveries), `retried` (always 0), `dropped` and `queued`.
 *
 * @example
 * ```ts
 * import { connect } from 'nats';
 * import { natsDispatcher, type CorePublishCounts, type JetStreamCounts } from 'fhirgate/nats';
 * const dispatcher = natsDispatcher(await connect({ servers: 'nats://127.0.0.1:4222' }), { source: 'urn:fhirgate:eu-1' });
 * const { published, dropped } = dispatcher.status() as CorePublishCounts;
 * ```
 */
export type CorePublishCounts = Omit<DeliveryCounts, 'sent'> & { published: number };

/**
 * What `status()` counts in JetStream mode: `sent` (acknowledged by the stream), `retried`, `dropped`,
 * `queued`, and `deduplicated`: retries the stream answered as duplicates (an earlier, unacknowledged
 * publish of the same event had been stored), each stored once.
 *
 * @example
 * ```ts
 * import { connect } from 'nats';
 * import { natsDispatcher, type CorePublishCounts, type JetStreamCounts } from 'fhirgate/nats';
 * const dispatcher = natsDispatcher(await connect({ servers: 'nats://127.0.0.1:4222' }), { source: 'urn:fhirgate:eu-1', mode: 'jetstream' });
 * const { sent, deduplicated } = dispatcher.status() as JetStreamCounts;
 * ```
 */
export type JetStreamCounts = DeliveryCounts & { deduplicated: number };

/** The keys of {@link NatsDispatcherOptions}; any other is refused with the nearest of these. */
export const NATS_OPTION_KEYS: readonly string[] = Object.freeze([
  ...QUEUED_OPTION_KEYS,
  ...keysOf<Omit<NatsDispatcherOptions, keyof QueuedDispatcherOptions>>({
    mode: true, batchSize: true, concurrency: true, ackTimeoutMs: true, retryForMs: true, retryBaseDelayMs: true, maxRetryDelayMs: true,
  }),
]);

const OWNER = 'natsDispatcher';
const MODES: readonly NatsMode[] = ['core', 'jetstream'];
/** A subject a publisher may use: dot-separated tokens, no whitespace, no wildcard. */
const SUBJECT = /^[^\s.*>]+(\.[^\s.*>]+)*$/;
const encoder = new TextEncoder();

/** Why a publish failed for good, from a `nats` error: its code (never the message data). */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return `NATS refused the publish (${typeof code === 'string' ? code : error instanceof Error ? error.name : 'error'})`;
}

class NatsDispatcher extends QueuedDispatcher {
  readonly #nc: NatsPublisher;
  readonly #js: JetStreamPublisher | undefined;
  readonly #ackTimeoutMs: number;
  #deduplicated = 0;

  constructor(nc: NatsPublisher, options: NatsDispatcherOptions) {
    const o = (typeof options === 'object' && options !== null ? options : {}) as Partial<NatsDispatcherOptions>;
    const mode = o.mode ?? 'core';
    if (!MODES.includes(mode)) throw new TypeError(`${OWNER}: options.mode must be one of ${MODES.join(', ')}`);
    if (mode === 'jetstream' && typeof nc.jetstream !== 'function') throw new TypeError(`${OWNER}: mode "jetstream" needs a connection with jetstream()`);
    const retryBaseDelayMs = numberOption(o.retryBaseDelayMs, `${OWNER}: options.retryBaseDelayMs`, 100, { integer: true, min: 1 });
    super(
      OWNER,
      options,
      mode === 'core'
        ? { concurrency: 1, batchSize: numberOption(o.batchSize, `${OWNER}: options.batchSize`, 256, { integer: true, min: 1 }), retryBaseDelayMs: 100, maxRetryDelayMs: 2000 }
        : {
            concurrency: numberOption(o.concurrency, `${OWNER}: options.concurrency`, 64, { integer: true, min: 1 }),
            batchSize: 1,
            retryBaseDelayMs,
            maxRetryDelayMs: numberOption(o.maxRetryDelayMs, `${OWNER}: options.maxRetryDelayMs`, Math.max(2000, retryBaseDelayMs), { integer: true, min: retryBaseDelayMs }),
            retryForMs: numberOption(o.retryForMs, `${OWNER}: options.retryForMs`, 60_000, { integer: true, min: 0 }),
          },
      NATS_OPTION_KEYS,
    );
    this.#nc = nc;
    this.#js = mode === 'jetstream' ? nc.jetstream!() : undefined;
    this.#ackTimeoutMs = numberOption(o.ackTimeoutMs, `${OWNER}: options.ackTimeoutMs`, 5000, { integer: true, min: 1 });
  }

  protected override refuses(eventName: string): string | undefined {
    return SUBJECT.test(eventName) ? undefined : 'the event name is not a NATS subject (whitespace, * or >)';
  }

  protected deliver(batch: CloudEvent[]): Promise<DeliveryVerdict> | DeliveryVerdict {
    if (this.#nc.isClosed?.() === true) return { drop: 'the NATS connection is closed' };
    return this.#js === undefined ? this.#publish(batch) : this.#publishAcknowledged(this.#js, batch);
  }

  /** Core: publish() only buffers (the client writes, and keeps what it holds across a reconnect); a throw will not change on retry. */
  #publish(batch: CloudEvent[]): DeliveryVerdict {
    try {
      for (const event of batch) this.#nc.publish(event.type, encoder.encode(JSON.stringify(event)));
    } catch (error) {
      return { drop: reasonOf(error) };
    }
    return 'sent';
  }

  /** JetStream: stored once the stream acknowledges; anything else is tried again under the same msgID. */
  async #publishAcknowledged(js: JetStreamPublisher, batch: CloudEvent[]): Promise<DeliveryVerdict> {
    const acks = await Promise.allSettled(batch.map((event) => js.publish(event.type, encoder.encode(JSON.stringify(event)), { msgID: event.id, timeout: this.#ackTimeoutMs })));
    if (this.#nc.isClosed?.() === true) return { drop: 'the NATS connection is closed' };
    for (const ack of acks) if (ack.status === 'fulfilled' && ack.value.duplicate) this.#deduplicated += 1;
    return acks.every((a) => a.status === 'fulfilled') ? 'sent' : 'retry';
  }

  /** Named for what they are: core NATS hands events to the client unacknowledged (`published`); JetStream's `sent` are acknowledged. */
  override status(): CorePublishCounts | JetStreamCounts {
    const { sent, ...rest } = this.counts();
    return this.#js === undefined ? { published: sent, ...rest } : { sent, ...rest, deduplicated: this.#deduplicated };
  }

  override async drain(): Promise<void> {
    await super.drain();
    await this.#nc.flush().catch(() => undefined);
  }
}

/**
 * An {@link EventDispatcher} that publishes every event on the user's NATS connection: subject = the
 * event name (`fhir.patient.read`), message = the CloudEvent in JSON (structured content mode: `id`
 * a UUID, `source` from the options, `type` the event name, `time`, `datacontenttype`, the payload as
 * `data`). Events go through a bounded queue, so `emit` never blocks a request.
 *
 * - `mode: 'core'` (default) is **at most once**: `publish` hands the event to the client, which
 *   buffers it across a reconnect, but nothing confirms it reached the server or a subscriber; a server
 *   restart loses what was in flight, uncounted. `status()` says `published`, not `sent`.
 * - `mode: 'jetstream'` publishes to a stream and waits for its acknowledgement (`sent`); an event
 *   without one is published again under the same `msgID` (its CloudEvent `id`), so the stream keeps it
 *   once (`deduplicated` counts such retries), until `retryForMs`: then it is dropped and counted.
 *
 * An event whose name is not a publishable subject, or that meets a closed connection, is dropped and
 * counted; the first drop of each reason is logged (`dropLogger`). Handlers registered on the dispatcher
 * still run in this process. The connection stays the user's: fhirgate never closes it.
 *
 * @throws TypeError when `nc` has no `publish`/`flush` (or no `jetstream` in JetStream mode), or an option is invalid (`RangeError` for a bad number).
 * @example
 * ```ts
 * import { connect } from 'nats';
 * import { createServiceAPI } from 'fhirgate';
 * import { natsDispatcher } from 'fhirgate/nats';
 * const nc = await connect({ servers: process.env.NATS_URL!, maxReconnectAttempts: -1 });
 * const app = createServiceAPI({ dispatcher: natsDispatcher(nc, { source: 'urn:fhirgate:eu-1', mode: 'jetstream' }) });
 * ```
 */
export function natsDispatcher(nc: NatsPublisher, options: NatsDispatcherOptions): QueuedDispatcher {
  if (typeof nc !== 'object' || nc === null || typeof nc.publish !== 'function' || typeof nc.flush !== 'function') {
    throw new TypeError('natsDispatcher: "nc" must be a connection of the nats package (with publish and flush)');
  }
  return new NatsDispatcher(nc, options);
}
