/**
 * `natsDispatcher`: fhirgate events published to NATS over the user's own connection from the `nats`
 * npm package, one subject per event name.
 * @module
 */
import type { CloudEvent } from '../events/cloud-event.js';
import type { DeliveryVerdict } from '../events/delivery-queue.js';
import { QueuedDispatcher, type QueuedDispatcherOptions } from '../events/queued-dispatcher.js';
import { numberOption } from '../lib/options.js';

/**
 * The part of a `NatsConnection` (`nats` v2, from `connect()`) fhirgate uses: `publish(subject, data)`
 * and `flush()`.
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
}

/**
 * Options of {@link natsDispatcher}.
 *
 * @example
 * ```ts
 * const options: NatsDispatcherOptions = { source: 'urn:fhirgate:eu-1', maxQueue: 50_000 };
 * ```
 */
export interface NatsDispatcherOptions extends QueuedDispatcherOptions {
  /** Events handed to the connection in one turn, at most (the client buffers and writes them). Default 256. */
  batchSize?: number;
}

const OWNER = 'natsDispatcher';
/** A subject a publisher may use: dot-separated tokens, no whitespace, no wildcard. */
const SUBJECT = /^[^\s.*>]+(\.[^\s.*>]+)*$/;
const encoder = new TextEncoder();

class NatsDispatcher extends QueuedDispatcher {
  readonly #nc: NatsPublisher;

  constructor(nc: NatsPublisher, options: NatsDispatcherOptions) {
    const o = (typeof options === 'object' && options !== null ? options : {}) as Partial<NatsDispatcherOptions>;
    super(OWNER, options, { concurrency: 1, batchSize: numberOption(o.batchSize, `${OWNER}: options.batchSize`, 256, { integer: true, min: 1 }), retryBaseDelayMs: 100, maxRetryDelayMs: 2000 });
    this.#nc = nc;
  }

  protected override accepts(eventName: string): boolean {
    return SUBJECT.test(eventName);
  }

  protected deliver(batch: CloudEvent[]): DeliveryVerdict {
    // publish() only buffers (the client writes, and keeps what it holds across a reconnect); it throws
    // once the connection is closed: then retrying cannot help.
    try {
      for (const event of batch) this.#nc.publish(event.type, encoder.encode(JSON.stringify(event)));
    } catch {
      return 'drop';
    }
    return 'sent';
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
 * `data`). Events go through a bounded queue, so `emit` never blocks a request; an event whose name is
 * not a publishable subject, or that meets a closed connection, is dropped and counted. While the client
 * reconnects it buffers what it is given (the `nats` client's own reconnect buffer). Handlers registered
 * on the dispatcher still run in this process. The connection stays the user's: fhirgate never closes it.
 *
 * @throws TypeError when `nc` has no `publish`/`flush`, or an option is invalid (`RangeError` for a bad number).
 * @example
 * ```ts
 * import { connect } from 'nats';
 * import { createServiceAPI } from 'fhirgate';
 * import { natsDispatcher } from 'fhirgate/nats';
 * const nc = await connect({ servers: process.env.NATS_URL! });
 * const app = createServiceAPI({ dispatcher: natsDispatcher(nc, { source: 'urn:fhirgate:eu-1' }) });
 * ```
 */
export function natsDispatcher(nc: NatsPublisher, options: NatsDispatcherOptions): QueuedDispatcher {
  if (typeof nc !== 'object' || nc === null || typeof nc.publish !== 'function' || typeof nc.flush !== 'function') {
    throw new TypeError('natsDispatcher: "nc" must be a connection of the nats package (with publish and flush)');
  }
  return new NatsDispatcher(nc, options);
}
