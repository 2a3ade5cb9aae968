/**
 * The primary's listener: it accepts every connection and hands each to one worker, round robin, over
 * the IPC channel. Not node:cluster's own round robin, because that one cannot stop without losing
 * connections: when the last worker leaves it, it closes the connections it had accepted and queued
 * (clients see resets), and a worker cannot stop accepting without closing its idle keep-alive
 * connections. Here the primary decides: a worker leaves the rotation before it is told to stop, and the
 * listener closes before the last worker leaves, so a client is either answered or refused, never reset.
 * @module
 */
import type { Worker } from 'node:cluster';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { Logger } from '../host/options.js';
import { queueEmpty } from './accept-queue.js';
import { HeldListener } from './held-listener.js';
import type { PrimaryMessage } from './messages.js';

/** Connections held while no worker can take one (all starting or restarting); more are refused. */
const MAX_WAITING = 1_024;

const CONNECTION: PrimaryMessage = { fhirgate: 'cluster', event: 'connection' };

/** Accepts connections on one port and hands them to the workers in the rotation. */
export class ConnectionRouter {
  readonly #server: Server;
  readonly #held: HeldListener;
  readonly #rotation: Worker[] = [];
  readonly #waiting: Socket[] = [];
  #next = 0;
  #closed = false;

  constructor() {
    // pauseOnConnect: the primary never reads a byte; the worker that gets the socket does.
    this.#server = createServer({ pauseOnConnect: true });
    this.#held = new HeldListener(this.#server, (socket) => this.#route(socket));
  }

  /**
   * Listens on `host:port` (0: a free port) and resolves to the port. With `reusePort`, the workers' own
   * listeners can join it on that port (the primary's then only holds the port while they start).
   */
  listen(port: number, host: string, reusePort: boolean): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen({ port, host, ...(reusePort ? { reusePort } : {}) }, () => {
        this.#server.off('error', reject);
        const address = this.#server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  }

  /** How many workers get connections. */
  get size(): number {
    return this.#rotation.length;
  }

  /** Whether `worker` is in the rotation. */
  has(worker: Worker): boolean {
    return this.#rotation.includes(worker);
  }

  /** `worker` gets connections from now on (and those waiting for one). */
  add(worker: Worker): void {
    if (this.#rotation.includes(worker)) return;
    this.#rotation.push(worker);
    for (const socket of this.#waiting.splice(0)) this.#route(socket);
  }

  /**
   * `worker` gets no more connections. The channel is ordered: a message sent to it after this arrives
   * after every connection it was handed.
   */
  remove(worker: Worker): void {
    const i = this.#rotation.indexOf(worker);
    if (i !== -1) this.#rotation.splice(i, 1);
  }

  /**
   * Stops accepting without resetting a connection the kernel queued: holds what it accepts (unrouted,
   * so closed-loop clients wait instead of connecting again) until the queue reads empty, closes, then
   * hands what it held to the workers still in the rotation. Bounded (see `held-listener.ts`); logged
   * when the queue did not read empty.
   */
  async closeQuietly(logger: Logger): Promise<void> {
    if (this.#closed) return;
    this.#held.hold();
    const quiet = await this.#held.quiet();
    const closed = await this.#held.close();
    this.#closed = true;
    if (!quiet.quiet || !queueEmpty(closed.queue)) {
      logger.warn('the cluster\'s listener closed without an empty queue: connections still queued may be reset', { reason: quiet.quiet ? 'it filled again' : quiet.reason, queued: closed.queue?.queued ?? null, waited_ms: quiet.ms + closed.ms });
    }
    this.#held.release();
  }

  /** Stops accepting: later connection attempts are refused. Connections already handed over are unaffected. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#server.close();
    for (const socket of this.#waiting.splice(0)) socket.destroy();
  }

  #route(socket: Socket): void {
    // A client that resets while its connection waits here must not take the primary down.
    if (socket.listenerCount('error') === 0) socket.on('error', () => socket.destroy());
    const live = this.#rotation.filter((w) => w.isConnected());
    if (live.length === 0) {
      if (this.#closed || this.#waiting.length >= MAX_WAITING) socket.destroy();
      else this.#waiting.push(socket);
      return;
    }
    const worker = live[this.#next++ % live.length]!;
    // keepOpen false (the default): the primary's copy closes once the worker has it.
    worker.send(CONNECTION, socket, (error: Error | null) => {
      if (error !== null && !socket.destroyed) this.#route(socket);
    });
  }
}
