/**
 * AuditEvents stored in a FHIR source, off the request path: queued, POSTed as `batch` Bundles every
 * interval (or when a batch is full), the queue bounded; AuditEvents dropped (queue full, or refused by
 * the server) are counted, never silently lost. One bad AuditEvent never loses its batch: the
 * batch-response says which entries the server refused (only those are lost), and a batch the server
 * refuses whole for its content (400, 413, 422) is split in halves and each half sent, down to the one
 * AuditEvent it refuses.
 * @module
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { FHIRHTTPError } from '../errors.js';
import type { Bundle } from '../fhir/index.js';
import { currentTrace } from '../lib/trace-scope.js';
import { inRootSpan } from '../lib/trace-spans.js';
import type { TracerLike } from '../lib/tracer.js';
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

/**
 * Published when AuditEvents are lost: `{ count, reason }`, `reason` one of `queue_full` (the oldest
 * dropped past `maxQueue`), `refused` (the server refused them) or `failed` (the server failed or was
 * unreachable). `/metrics` counts them.
 */
export const auditLostChannel = diagnostics_channel.channel('fhirgate:audit:lost');

/** Why AuditEvents were lost (see {@link auditLostChannel}). */
type LossReason = 'queue_full' | 'refused' | 'failed';

/** A bounded, batching sender of AuditEvents. */
export class AuditSink {
  readonly #options: Required<AuditSinkOptions>;
  readonly #post: PostBatch;
  readonly #queue: Record<string, unknown>[] = [];
  readonly #timer: NodeJS.Timeout;
  #sending: Promise<void> | undefined;
  /** The tracer of the requests audited (the host's), for the span of each flush. */
  #tracer: TracerLike | undefined;
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
    this.#tracer ??= currentTrace()?.tracer;
    this.#queue.push(event);
    if (this.#queue.length > this.#options.maxQueue) {
      this.#queue.shift();
      this.#lose(1, 'queue_full');
    }
    if (this.#queue.length >= this.#options.batchSize) void this.flush();
  }

  /** The counts. */
  status(): AuditSinkStatus {
    return { queued: this.#queue.length, sent: this.#sent, lost: this.#lost };
  }

  /**
   * Sends what is queued, one batch at a time; resolves when the queue is empty or a batch failed. A
   * flush serves many requests: it is a trace of its own (a root span `fhirgate.audit.flush` with a tracer).
   */
  flush(): Promise<void> {
    return (this.#sending ??= inRootSpan(this.#tracer, 'fhirgate.audit.flush', () => this.#drain()).finally(() => (this.#sending = undefined)));
  }

  /** Stops the timer and sends what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      // A server that failed (not the batch's content) ends this drain: the rest waits for the next.
      if (!(await this.#send(this.#queue.splice(0, this.#options.batchSize)))) return;
    }
  }

  /**
   * Sends `events` as one batch and counts them sent or lost; a batch refused whole for its content is
   * split. False when the server failed whatever the content (unreachable, 5xx, credentials).
   */
  async #send(events: readonly Record<string, unknown>[]): Promise<boolean> {
    const bundle = { resourceType: 'Bundle', type: 'batch', entry: events.map((resource) => ({ resource, request: { method: 'POST', url: 'AuditEvent' } })) } as unknown as Bundle;
    let answer: Bundle;
    try {
      answer = await this.#post(bundle);
    } catch (error) {
      const contentRefused = CONTENT_REFUSALS.has(upstreamStatus(error));
      if (contentRefused && events.length > 1) {
        const half = Math.ceil(events.length / 2);
        if (await this.#send(events.slice(0, half))) return this.#send(events.slice(half));
        // The server failed meanwhile: the other half is lost with the batch, and counted.
        this.#lose(events.length - half, 'failed');
        return false;
      }
      this.#lose(events.length, contentRefused ? 'refused' : 'failed');
      return contentRefused;
    }
    // Entry i of a batch-response answers entry i of the batch; a missing answer is a refusal.
    const entries = answer.entry ?? [];
    let stored = 0;
    for (let i = 0; i < events.length; i++) if (/^2/.test(entries[i]?.response?.status ?? '')) stored++;
    this.#sent += stored;
    if (stored < events.length) this.#lose(events.length - stored, 'refused');
    return true;
  }

  /** Counts `count` AuditEvents lost, and tells the channel why. */
  #lose(count: number, reason: LossReason): void {
    this.#lost += count;
    if (auditLostChannel.hasSubscribers) auditLostChannel.publish({ count, reason });
  }
}

/** The statuses with which a server refuses a batch for what it holds, not for who sent it or its own state. */
const CONTENT_REFUSALS: ReadonlySet<number> = new Set([400, 413, 422]);

/** The status the audit source answered (an `ERR_FHIR_HTTP` keeps it), 0 when it gave none. */
function upstreamStatus(error: unknown): number {
  return error instanceof FHIRHTTPError ? error.status : 0;
}
