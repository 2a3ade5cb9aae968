/**
 * AuditEvents stored in a FHIR source, off the request path: queued, POSTed as `batch` Bundles every
 * interval (or when a batch is full), the queue bounded; AuditEvents dropped (queue full, or a batch
 * the server refused) are counted, never silently lost.
 * @module
 */
import type { Bundle } from '../fhir/index.js';
import type { AuditSinkOptions } from './options.js';

/** What the sink needs of the gateway: one batch POST to the audit source. */
export type PostBatch = (bundle: Bundle) => Promise<Bundle>;

/**
 * Counts of a sink.
 *
 * @example
 * ```ts
 * const s: AuditSinkStatus = { queued: 0, sent: 120, lost: 0 };
 * ```
 */
export interface AuditSinkStatus {
  readonly queued: number;
  readonly sent: number;
  readonly lost: number;
}

/** A bounded, batching sender of AuditEvents. */
export class AuditSink {
  readonly #options: Required<AuditSinkOptions>;
  readonly #post: PostBatch;
  readonly #queue: Record<string, unknown>[] = [];
  readonly #timer: NodeJS.Timeout;
  #sending: Promise<void> | undefined;
  #sent = 0;
  #lost = 0;

  constructor(options: Required<AuditSinkOptions>, post: PostBatch) {
    this.#options = options;
    this.#post = post;
    this.#timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.#timer.unref();
  }

  /** Queues one AuditEvent; past `maxQueue` the oldest is dropped and counted lost. */
  add(event: Record<string, unknown>): void {
    this.#queue.push(event);
    if (this.#queue.length > this.#options.maxQueue) {
      this.#queue.shift();
      this.#lost++;
    }
    if (this.#queue.length >= this.#options.batchSize) void this.flush();
  }

  /** The counts. */
  status(): AuditSinkStatus {
    return { queued: this.#queue.length, sent: this.#sent, lost: this.#lost };
  }

  /** Sends what is queued, one batch at a time; resolves when the queue is empty or a batch failed. */
  flush(): Promise<void> {
    return (this.#sending ??= this.#drain().finally(() => (this.#sending = undefined)));
  }

  /** Stops the timer and sends what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const events = this.#queue.splice(0, this.#options.batchSize);
      const bundle: Bundle = { resourceType: 'Bundle', type: 'batch', entry: events.map((resource) => ({ resource, request: { method: 'POST', url: 'AuditEvent' } })) } as unknown as Bundle;
      try {
        const answer = await this.#post(bundle);
        const failed = (answer.entry ?? []).filter((e) => !/^2/.test(e.response?.status ?? '')).length;
        this.#sent += events.length - failed;
        this.#lost += failed;
      } catch {
        this.#lost += events.length;
        return;
      }
    }
  }
}
