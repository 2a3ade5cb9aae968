/**
 * A bounded queue that delivers items in the background, so that an event bus that is slow or down
 * never blocks or fails a request: what does not fit is dropped and counted.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What one delivery attempt came to: delivered, worth another try, or hopeless (dropped).
 *
 * @example
 * ```ts
 * const verdict: DeliveryVerdict = res.ok ? 'sent' : res.status >= 500 ? 'retry' : 'drop';
 * ```
 */
export type DeliveryVerdict = 'sent' | 'retry' | 'drop';

/**
 * Counts a dispatcher shows under `events` in `/gateway/status` (and in `/metrics`).
 *
 * @example
 * ```ts
 * const dispatcher = new CloudEventsDispatcher({ url: 'https://events.example.org/ingest', source: 'urn:fhirgate:eu-1' });
const { sent, dropped }: DeliveryCounts = dispatcher.status();
 * ```
 */
export type DeliveryCounts = {
  /** Events delivered. */
  sent: number;
  /** Delivery attempts that failed and were tried again (one per event per retry). */
  retried: number;
  /** Events given up: the queue was full, the bus refused them for good, or the dispatcher closed. */
  dropped: number;
  /** Events waiting or being delivered now. */
  queued: number;
};

/**
 * Settings of a {@link DeliveryQueue}, already validated by the dispatcher that makes it.
 *
 * @example
 * ```ts
 * const settings: DeliverySettings = { maxQueue: 10_000, concurrency: 4, batchSize: 1, retryBaseDelayMs: 100, maxRetryDelayMs: 2000 };
 * ```
 */
export interface DeliverySettings {
  /** Events waiting at most; more are dropped. */
  readonly maxQueue: number;
  /** Deliveries running at once. */
  readonly concurrency: number;
  /** Events handed to one delivery at most. */
  readonly batchSize: number;
  /** Back-off before retry n: random in [d/2, d] with d = min(maxRetryDelayMs, retryBaseDelayMs × 2^(n-1)). */
  readonly retryBaseDelayMs: number;
  readonly maxRetryDelayMs: number;
}

/**
 * Holds up to `maxQueue` items and hands them, `batchSize` at a time, to `deliver`, at most
 * `concurrency` calls at once. A `'retry'` verdict (or a throw) keeps the batch and tries it again after
 * a back-off, for as long as the queue is open: nothing that fits in the queue is lost while the bus is
 * down. `push` never blocks and never throws.
 *
 * @example
 * ```ts
 * const queue = new DeliveryQueue<Event>(settings, async (batch) => ((await post(batch)).ok ? 'sent' : 'retry'));
 * queue.push(event);
 * await queue.idle(5_000);
 * ```
 */
export class DeliveryQueue<T> {
  readonly #settings: DeliverySettings;
  readonly #deliver: (batch: T[]) => Promise<DeliveryVerdict> | DeliveryVerdict;
  readonly #closing = new AbortController();
  #items: T[] = [];
  #head = 0;
  #active = 0;
  #inFlight = 0;
  #idle: Array<() => void> = [];
  readonly #counts = { sent: 0, retried: 0, dropped: 0 };

  constructor(settings: DeliverySettings, deliver: (batch: T[]) => Promise<DeliveryVerdict> | DeliveryVerdict) {
    this.#settings = settings;
    this.#deliver = deliver;
  }

  /** Queues `item` (or drops and counts it when the queue is full or closed) and starts a delivery. */
  push(item: T): void {
    if (this.#closing.signal.aborted || this.#waiting() >= this.#settings.maxQueue) {
      this.#counts.dropped += 1;
      return;
    }
    this.#items.push(item);
    this.#pump();
  }

  /** Counts an item the dispatcher refused before queueing it as dropped. */
  reject(): void {
    this.#counts.dropped += 1;
  }

  /** The counts so far. */
  counts(): DeliveryCounts {
    return { ...this.#counts, queued: this.#waiting() + this.#inFlight };
  }

  /** Resolves once nothing is waiting or being delivered, or after `timeoutMs`, whichever comes first. */
  async idle(timeoutMs: number): Promise<void> {
    if (this.#isIdle()) return;
    const done = new Promise<void>((resolve) => this.#idle.push(resolve));
    const timer = sleep(timeoutMs, undefined, { ref: false, signal: this.#closing.signal }).catch(() => undefined);
    await Promise.race([done, timer]);
  }

  /** Stops: what is waiting is dropped (and counted), running deliveries end after their attempt. */
  close(): void {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort();
    this.#counts.dropped += this.#waiting();
    this.#items = [];
    this.#head = 0;
    this.#settle();
  }

  #waiting(): number {
    return this.#items.length - this.#head;
  }

  #isIdle(): boolean {
    return this.#waiting() === 0 && this.#active === 0;
  }

  #take(): T[] {
    const end = Math.min(this.#items.length, this.#head + this.#settings.batchSize);
    const batch = this.#items.slice(this.#head, end);
    this.#head = end;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return batch;
  }

  #pump(): void {
    while (this.#active < this.#settings.concurrency && this.#waiting() > 0) {
      const batch = this.#take();
      this.#active += 1;
      this.#inFlight += batch.length;
      void this.#run(batch).finally(() => {
        this.#active -= 1;
        this.#inFlight -= batch.length;
        this.#pump();
        this.#settle();
      });
    }
  }

  async #run(batch: T[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let verdict: DeliveryVerdict;
      try {
        verdict = await this.#deliver(batch);
      } catch {
        verdict = 'retry';
      }
      if (verdict === 'sent') {
        this.#counts.sent += batch.length;
        return;
      }
      if (verdict === 'drop' || this.#closing.signal.aborted) {
        this.#counts.dropped += batch.length;
        return;
      }
      this.#counts.retried += batch.length;
      const { retryBaseDelayMs, maxRetryDelayMs } = this.#settings;
      const ceiling = Math.min(maxRetryDelayMs, retryBaseDelayMs * 2 ** (attempt - 1));
      try {
        await sleep(ceiling / 2 + Math.random() * (ceiling / 2), undefined, { signal: this.#closing.signal });
      } catch {
        this.#counts.dropped += batch.length;
        return;
      }
    }
  }

  #settle(): void {
    if (!this.#isIdle() && !this.#closing.signal.aborted) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}
