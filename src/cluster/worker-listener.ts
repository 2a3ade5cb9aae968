/**
 * A worker's own listener on the port (`reusePort`) and its two ways to stop. Alone (a rolling
 * restart's `retire`, or a worker outside a cluster stop): it closes, and with
 * `net.ipv4.tcp_migrate_req=1` the kernel moves its queue to the other listeners. Together (a cluster
 * stop, `drain`): it holds the connections it accepts, says `quiet` once its queue reads empty, closes
 * when the primary says every listener is quiet, and hands what it held to the server when the primary
 * says every listener is closed (see `stop-together.ts`). Each wait for the primary is bounded, so a
 * worker never hangs on a primary that does not answer.
 * @module
 */
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import type { Server as NetServer } from 'node:net';
import type { Logger } from '../host/options.js';
import { queueEmpty } from './accept-queue.js';
import { HeldListener, HOLD_MS } from './held-listener.js';
import type { WorkerMessage } from './messages.js';

/**
 * The longest a worker waits for each of the primary's steps, from its own report (the primary waits up to
 * {@link HOLD_MS} for the slowest worker, from the first report).
 */
const STEP_MS = 2 * HOLD_MS;

/** A step the primary announces: `signal()` may come before the worker waits for it; `wait()` is bounded from its call. */
function primaryStep(): { signal: () => void; wait: (ms: number) => Promise<boolean> } {
  let signalled = false;
  const waiting = new Set<() => void>();
  return {
    signal: () => {
      signalled = true;
      for (const wake of waiting) wake();
    },
    wait: (ms) => new Promise<boolean>((resolve) => {
      if (signalled) return resolve(true);
      const wake = () => {
        waiting.delete(wake);
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        waiting.delete(wake);
        resolve(false);
      }, ms);
      waiting.add(wake);
    }),
  };
}

/** One worker's `reusePort` listener, handing the connections it accepts to `server`. */
export class WorkerListener {
  readonly #listener: NetServer;
  readonly #held: HeldListener;
  #closeListener: (() => void) | undefined;
  #release: (() => void) | undefined;

  private constructor(listener: NetServer, server: Server) {
    this.#listener = listener;
    this.#held = new HeldListener(listener, (socket) => server.emit('connection', socket));
  }

  /** Listens on `host:port` with `reusePort` and resolves once it does. */
  static listen(server: Server, port: number, host: string): Promise<WorkerListener> {
    const listener = createServer();
    const own = new WorkerListener(listener, server);
    return new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen({ port, host, reusePort: true }, () => {
        listener.off('error', reject);
        resolve(own);
      });
    });
  }

  /** The primary's `close-listener` or `release` of a stop together. */
  step(event: 'close-listener' | 'release'): void {
    if (event === 'close-listener') this.#closeListener?.();
    else this.#release?.();
  }

  /** Closes at once; the connections already accepted stay open. */
  stopAlone(): Promise<void> {
    this.#listener.close();
    return Promise.resolve();
  }

  /**
   * Stops together with the other workers through the primary (`tell` sends to it), and resolves once
   * the connections held meanwhile are handed to the server.
   */
  async stopTogether(tell: (message: WorkerMessage) => Promise<void>, logger: Logger): Promise<void> {
    const closeListener = primaryStep();
    const release = primaryStep();
    this.#closeListener = closeListener.signal;
    this.#release = release.signal;
    const pid = process.pid;
    this.#held.hold();
    const quiet = await Promise.race([this.#held.quiet(), closeListener.wait(STEP_MS).then(() => undefined)]);
    if (quiet !== undefined && !quiet.quiet) logger.warn('holding new connections did not empty the listener\'s queue; it may reset the ones still queued', { pid, reason: quiet.reason, queued: quiet.queue?.queued, waited_ms: quiet.ms });
    if (quiet !== undefined) await tell({ fhirgate: 'cluster', event: 'quiet', quiet: quiet.quiet });
    if (!(await closeListener.wait(STEP_MS))) logger.warn('the primary did not say to close the listener in time: closing it', { pid, waited_ms: STEP_MS });
    const closed = await this.#held.close();
    if (!queueEmpty(closed.queue)) {
      logger.warn('listener closed with connections queued or unread: they may be reset', { pid, queued: closed.queue?.queued ?? null, handshaking: closed.queue?.handshaking ?? null, waited_ms: closed.ms });
    }
    await tell({ fhirgate: 'cluster', event: 'listener-closed' });
    if (!(await release.wait(STEP_MS))) logger.warn('the primary did not say to release the held connections in time: releasing them', { pid, waited_ms: STEP_MS });
    logger.debug('listener closed; held connections released', { pid, held: this.#held.held });
    this.#held.release();
  }
}
