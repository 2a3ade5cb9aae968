/**
 * The primary's side of a cluster stop where the workers listen on the port themselves (`reusePort`).
 * Closing the last listener of a port resets the connections queued on it, and a worker that answers
 * the connections it held while another worker's listener is still open sends their clients there
 * (closed-loop clients connect again at once). So the workers stop together: each holds the connections
 * it accepts and reports `quiet` once its queue reads empty; when every one has, each is told to close
 * its listener; when every listener is closed, each is told to release what it holds (answered with
 * `Connection: close`; the clients' next connections are refused, not reset). Each step waits at most
 * {@link HOLD_MS} for the slowest worker, then goes on (logged: resets are possible from then on).
 * @module
 */
import type { Worker } from 'node:cluster';
import type { Logger } from '../host/options.js';
import { HOLD_MS } from './held-listener.js';
import type { PrimaryMessage } from './messages.js';

type Phase = 'serving' | 'holding' | 'closing' | 'released';

const send = (worker: Worker, event: 'close-listener' | 'release'): void => {
  if (worker.isConnected()) worker.send({ fhirgate: 'cluster', event } satisfies PrimaryMessage);
};

/** Steps the workers of one stop through hold, close and release together. */
export class StopTogether {
  readonly #logger: Logger;
  readonly #members = new Set<Worker>();
  /** The members the current phase still waits for. */
  readonly #waiting = new Set<Worker>();
  #phase: Phase = 'serving';
  #timer: NodeJS.Timeout | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** The cluster stops: `workers` (those listening on the port) hold, then close and release together. */
  begin(workers: readonly Worker[]): void {
    if (this.#phase !== 'serving') return;
    this.#phase = 'holding';
    for (const worker of workers) this.#members.add(worker);
    this.#waitForAll();
    this.#advance();
  }

  /**
   * `worker` holds its new connections and its queue read empty (`quiet` false: it could not be read,
   * or did not empty in time). A worker outside this stop (one stopping on its own signal, or while
   * nothing stops) is told to close at once: the others' listeners take its queue.
   */
  quiet(worker: Worker, quiet: boolean): void {
    if (this.#phase !== 'holding' || !this.#members.has(worker)) return send(worker, 'close-listener');
    if (!quiet) this.#logger.warn('a worker closes its listener without an empty queue: connections queued on the last listener may be reset', { pid: worker.process.pid });
    this.#timer ??= setTimeout(() => this.#expire(), HOLD_MS);
    this.#waiting.delete(worker);
    this.#advance();
  }

  /** `worker` has closed its listener. */
  closed(worker: Worker): void {
    if (this.#phase !== 'closing' || !this.#members.has(worker)) return send(worker, 'release');
    this.#waiting.delete(worker);
    this.#advance();
  }

  /** `worker` exited: no step waits for it any more. */
  gone(worker: Worker): void {
    this.#members.delete(worker);
    if (this.#waiting.delete(worker)) this.#advance();
  }

  #waitForAll(): void {
    this.#waiting.clear();
    for (const worker of this.#members) if (worker.isConnected()) this.#waiting.add(worker);
  }

  #advance(): void {
    if (this.#waiting.size > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#phase === 'holding') {
      this.#phase = 'closing';
      this.#waitForAll();
      for (const worker of this.#members) send(worker, 'close-listener');
      if (this.#waiting.size > 0) this.#timer = setTimeout(() => this.#expire(), HOLD_MS);
      else this.#advance();
    } else if (this.#phase === 'closing') {
      this.#phase = 'released';
      for (const worker of this.#members) send(worker, 'release');
    }
  }

  #expire(): void {
    this.#timer = undefined;
    const late = [...this.#waiting].map((w) => w.process.pid);
    this.#logger.warn(`the workers' listeners did not all ${this.#phase === 'holding' ? 'read an empty queue' : 'close'} within ${HOLD_MS} ms: going on; connections queued on the last listener may be reset`, { workers: late });
    this.#waiting.clear();
    this.#advance();
  }
}
