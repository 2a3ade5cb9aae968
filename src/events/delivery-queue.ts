/**
 * A bounded queue that delivers items in the background, so that an event bus that is slow or down
 * never blocks or fails a request: what does not fit is dropped and counted.
 * @module
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What one delivery attempt came to: delivered, worth another try, or hopeless: dropped, with the
 * reason (logged once per reason, so it must hold no event data and no secret).
 */
export type DeliveryVerdict = 'sent' | 'retry' | { readonly drop: string };

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

/** Settings of a {@link DeliveryQueue}, already validated by the dispatcher that makes it. */
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
  /** How long a batch is retried from its first attempt, in ms, before it is dropped. Default: as long as the queue is open. */
  readonly retryForMs?: number;
}

/** Told of every drop: why, and how many items. */
export type DropReport = (reason: string, count: number) => void;

/**
 * Holds up to `maxQueue` items and hands them, `batchSize` at a time, to `deliver`, at most
 * `concurrency` calls at once. A `'retry'` verdict (or a throw) keeps the batch and tries it again after
 * a back-off, for as long as the queue is open (or `retryForMs`): nothing that fits in the queue is lost
 * while the bus is down. Every drop is counted and told to `report` with its reason. `push` never
 * blocks and never throws.
 */
export class DeliveryQueue<T> {
  readonly #settings: DeliverySettings;
  readonly #deliver: (batch: T[]) => Promise<DeliveryVerdict> | DeliveryVerdict;
  readonly #report: DropReport;
  readonly #closing = new AbortController();
  #items: T[] = [];
  #head = 0;
  #active = 0;
  #inFlight = 0;
  #idle: Array<() => void> = [];
  readonly #counts = { sent: 0, retried: 0, dropped: 0 };

  constructor(settings: DeliverySettings, deliver: (batch: T[]) => Promise<DeliveryVerdict> | DeliveryVerdict, report: DropReport = () => {}) {
    this.#settings = settings;
    this.#deliver = deliver;
    this.#report = report;
    // Each running delivery's back-off and each idle() waiter listens for close: as many as
    // `concurrency` plus the drains in progress, each removed when it ends.
    setMaxListeners(0, this.#closing.signal);
  }

  /** Queues `item` (or drops and counts it when the queue is full or closed) and starts a delivery. */
  push(item: T): void {
    if (this.#closing.signal.aborted) return this.reject('the dispatcher is closed');
    if (this.#waiting() >= this.#settings.maxQueue) return this.reject(`the queue is full (maxQueue ${this.#settings.maxQueue})`);
    this.#items.push(item);
    this.#pump();
  }

  /** Counts an item the dispatcher refused before queueing it as dropped, for `reason`. */
  reject(reason: string): void {
    this.#drop(reason, 1);
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
    if (this.#waiting() > 0) this.#drop('closed before they were delivered', this.#waiting());
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

  #drop(reason: string, count: number): void {
    this.#counts.dropped += count;
    this.#report(reason, count);
  }

  async #run(batch: T[]): Promise<void> {
    const { retryBaseDelayMs, maxRetryDelayMs, retryForMs = Infinity } = this.#settings;
    const giveUpAt = performance.now() + retryForMs;
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
      if (verdict !== 'retry') return this.#drop(verdict.drop, batch.length);
      if (this.#closing.signal.aborted) return this.#drop('closed before they were delivered', batch.length);
      const ceiling = Math.min(maxRetryDelayMs, retryBaseDelayMs * 2 ** (attempt - 1));
      const wait = ceiling / 2 + Math.random() * (ceiling / 2);
      if (performance.now() + wait > giveUpAt) return this.#drop(`not delivered within retryForMs (${retryForMs} ms)`, batch.length);
      this.#counts.retried += batch.length;
      try {
        await sleep(wait, undefined, { signal: this.#closing.signal });
      } catch {
        return this.#drop('closed before they were delivered', batch.length);
      }
    }
  }

  #settle(): void {
    if (!this.#isIdle() && !this.#closing.signal.aborted) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}
