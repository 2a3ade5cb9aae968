/**
 * A listener that can close without resetting anyone. Linux completes TCP handshakes into a listener's
 * accept queue by itself, and closing the last listener of a port resets every connection still queued
 * there (`inet_csk_listen_stop`). Under a closed-loop load the queue is never empty while the server
 * answers: every answer lets its client connect again at once. So a stop first holds: the connections
 * accepted from then on are kept, unanswered (their clients wait instead of connecting again), until the
 * queue reads empty; then the listener closes in the same turn as a read of an empty queue; then the held
 * connections are handed on and answered. Holding is bounded ({@link HOLD_MS}); where the queue cannot be
 * read (not Linux, no `/proc`) the listener closes at once, as it always did.
 * @module
 */
import type { Server, Socket } from 'node:net';
import { acceptQueueReader, queueEmpty } from './accept-queue.js';
import type { AcceptQueue } from './accept-queue.js';

/**
 * The longest a stop holds new connections back waiting for an empty queue, in ms, and again the longest
 * its close waits for one. Past it the listener closes anyway and the connections still queued on it can
 * be reset (the caller logs it).
 */
export const HOLD_MS = 2_000;

/**
 * How often the queue is read while holding, in ms, at the most. A read walks every TCP socket of the
 * namespace (10 ms with a few, 90 ms with 3,000 on the 2-core machine), so the next one waits at least
 * twice as long as the last took: the worker keeps two thirds of its time for the connections it serves.
 */
const POLL_MS = 5;

/** Reads the queue with `read`, and says when to read it again. */
function timed(read: () => AcceptQueue | undefined): { queue: AcceptQueue | undefined; nextInMs: number } {
  const started = performance.now();
  const queue = read();
  return { queue, nextInMs: Math.max(POLL_MS, 2 * (performance.now() - started)) };
}

/** The queue counts as quiet once it has read empty, with nothing accepted, for this long (ms). */
const SETTLE_MS = 50;

/** How a wait for an empty queue ended. */
export type QuietOutcome =
  | { readonly quiet: true; readonly ms: number }
  | { readonly quiet: false; readonly ms: number; readonly reason: string; readonly queue?: AcceptQueue };

/** A held connection whose client gave up: it is dropped (the client has gone). */
function dropHeld(this: Socket): void {
  this.destroy();
}

/** Wraps a listening `net.Server`: its connections go to `serve`, or are held while it stops. */
export class HeldListener {
  readonly #listener: Server;
  readonly #serve: (socket: Socket) => void;
  /** The held connections, each with its `close` listener (removed when it is handed on). */
  #held: Map<Socket, () => void> | undefined;
  #read: (() => AcceptQueue | undefined) | string | undefined;
  #lastAccept = 0;
  #holdStarted = 0;

  /** Takes over `listener`'s `connection` event: each connection goes to `serve` unless held. */
  constructor(listener: Server, serve: (socket: Socket) => void) {
    this.#listener = listener;
    this.#serve = serve;
    listener.on('connection', (socket: Socket) => this.#accepted(socket));
  }

  /** How many connections are held now. */
  get held(): number {
    return this.#held?.size ?? 0;
  }

  /** Holds every connection accepted from now on (until {@link release}). */
  hold(): void {
    if (this.#held !== undefined) return;
    this.#held = new Map();
    this.#holdStarted = performance.now();
    this.#read ??= this.#listener.listening ? acceptQueueReader(this.#listener) : 'the listener is closed';
  }

  /**
   * Resolves once the queue has read empty (no connection queued, no handshake under way on the port)
   * for a moment with nothing accepted, or {@link HOLD_MS} after {@link hold}, or at once where the queue
   * cannot be read. Call after `hold()`.
   */
  quiet(): Promise<QuietOutcome> {
    const read = this.#read;
    const started = this.#holdStarted;
    const elapsed = () => Math.round(performance.now() - started);
    if (typeof read !== 'function') return Promise.resolve({ quiet: false, ms: elapsed(), reason: read ?? 'not holding' });
    return new Promise((resolve) => {
      let emptySince: number | undefined;
      const poll = () => {
        const { queue, nextInMs } = timed(read);
        const now = performance.now();
        if (queue === undefined) return resolve({ quiet: false, ms: elapsed(), reason: 'the queue could no longer be read' });
        if (!queueEmpty(queue) || this.#lastAccept > (emptySince ?? now)) emptySince = undefined;
        else emptySince ??= now;
        if (emptySince !== undefined && now - emptySince >= SETTLE_MS) return resolve({ quiet: true, ms: elapsed() });
        if (now - started >= HOLD_MS) return resolve({ quiet: false, ms: elapsed(), reason: `the queue did not read empty within ${HOLD_MS} ms`, queue });
        setTimeout(poll, nextInMs);
      };
      poll();
    });
  }

  /**
   * Closes the listener in the same turn as a read of an empty queue (accepting, and holding, what
   * arrives meanwhile), or after {@link HOLD_MS} whatever it holds, or at once where the queue cannot
   * be read. Resolves to what the queue held at the close (`undefined` where unread) and how long it took.
   */
  close(): Promise<{ queue: AcceptQueue | undefined; ms: number }> {
    const read = this.#read;
    const started = performance.now();
    const closeNow = (queue: AcceptQueue | undefined) => {
      if (this.#listener.listening) this.#listener.close();
      return { queue, ms: Math.round(performance.now() - started) };
    };
    if (typeof read !== 'function' || !this.#listener.listening) return Promise.resolve(closeNow(undefined));
    return new Promise((resolve) => {
      const attempt = () => {
        const { queue, nextInMs } = timed(read);
        if (queue === undefined || queueEmpty(queue) || performance.now() - started >= HOLD_MS) return resolve(closeNow(queue));
        setTimeout(attempt, nextInMs);
      };
      attempt();
    });
  }

  /** Hands every held connection on, and the later ones at once. */
  release(): void {
    const held = this.#held ?? new Map<Socket, () => void>();
    this.#held = undefined;
    for (const [socket, forget] of held) {
      socket.off('error', dropHeld);
      socket.off('close', forget);
      if (!socket.destroyed) this.#serve(socket);
    }
  }

  #accepted(socket: Socket): void {
    this.#lastAccept = performance.now();
    if (this.#held === undefined) return this.#serve(socket);
    const held = this.#held;
    const forget = () => void held.delete(socket);
    held.set(socket, forget);
    socket.on('error', dropHeld);
    socket.once('close', forget);
  }
}
