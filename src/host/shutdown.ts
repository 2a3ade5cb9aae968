/**
 * Graceful shutdown: track in-flight requests, stop servers, wait a bounded time, then abort.
 * @module
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** Something in flight that can be aborted. */
export interface Abortable {
  abort(reason: unknown): void;
}

/**
 * The requests being answered: a count, and the ones that can be aborted (those whose handler asked
 * for an abort signal; aborting the others would change nothing). Counting rather than keeping every
 * request in a set: a `Set` insert and delete per request was a visible share of the host's own CPU on
 * the transform endpoint (`node --cpu-prof`).
 */
export class InFlight {
  #count = 0;
  readonly #abortable = new Set<Abortable>();
  readonly #waiters = new Set<() => void>();

  get size(): number {
    return this.#count;
  }

  /** A request has come in. */
  enter(): void {
    this.#count++;
  }

  /** `item` (a request in flight) can be aborted from now on. */
  watch(item: Abortable): void {
    this.#abortable.add(item);
  }

  /** A request has been answered; `item` is the request, when it got that far. */
  leave(item: Abortable | undefined): void {
    if (item !== undefined && this.#abortable.size !== 0) this.#abortable.delete(item);
    if (--this.#count === 0) for (const wake of this.#waiters) wake();
  }

  /** Resolves once nothing is in flight. */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.#waiters.delete(wake);
        resolve();
      };
      this.#waiters.add(wake);
    });
  }

  /** Aborts everything in flight that can be aborted. */
  abortAll(reason: unknown): void {
    for (const item of this.#abortable) item.abort(reason);
  }
}

/**
 * A server of the app and how it stops accepting connections: a listening server closes its listener;
 * a server fed connections by someone else (a `fhirgate/cluster` worker) asks that someone to stop.
 */
export interface Served {
  readonly server: Server;
  /** Every connection the server has now (tracked from its `connection` event). */
  readonly sockets: ReadonlySet<Socket>;
  /** Resolves once no new connection will reach the server. */
  stopAccepting(): Promise<void>;
}

/**
 * How long idle keep-alive connections get to be used once more (and be answered with `Connection:
 * close`) or be closed by their clients before the server closes them: closing an idle connection races
 * with a client sending on it, so it is done only once clients under load have all come back.
 */
const IDLE_DRAIN_MS = 1_000;

/**
 * Starts tracking the connections of `server` (also those handed to it with `emit('connection')`,
 * which Node's own count misses).
 */
export function trackSockets(server: Server): ReadonlySet<Socket> {
  const sockets = new Set<Socket>();
  // One listener for every socket ('close' comes once): a `once` wrapper and a closure per connection were
  // ~170 B of each of the soak's 1,000 connections.
  function forget(this: Socket): void {
    sockets.delete(this);
  }
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', forget);
  });
  return sockets;
}

const gone = (served: readonly Served[]): boolean => served.every((s) => s.sockets.size === 0);

/** Resolves once every server has no connection left, or after `ms`. */
function socketsGone(served: readonly Served[], ms: number): Promise<void> {
  if (gone(served)) return Promise.resolve();
  return new Promise((resolve) => {
    const started = performance.now();
    // Polled: per-socket close listeners already exist; a 20 ms tick costs nothing next to a shutdown.
    const tick = setInterval(() => {
      if (!gone(served) && performance.now() - started < ms) return;
      clearInterval(tick);
      resolve();
    }, 20);
  });
}

/**
 * Stops `served` servers gracefully, in the order that loses no request: stop accepting (the listener
 * closes; idle keep-alive connections stay open), then let every connection end by itself while each
 * answer carries `Connection: close` (the app is closing), for up to {@link IDLE_DRAIN_MS}; then close
 * the connections still idle, let requests in flight finish, and close each connection after its answer.
 * When that takes longer than `graceMs`, in-flight requests are aborted with `reason` and every
 * connection is cut. Resolves when no connection is left (or the grace period is over).
 */
export async function stopServers(served: readonly Served[], inFlight: InFlight, graceMs: number, reason: unknown): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      inFlight.abortAll(reason);
      for (const { server, sockets } of served) {
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }
      resolve();
    }, graceMs);
  });
  const closeIdle = () => {
    for (const { server } of served) server.closeIdleConnections();
  };
  await Promise.race([Promise.all(served.map((s) => s.stopAccepting())), deadline]);
  await Promise.race([socketsGone(served, Math.min(IDLE_DRAIN_MS, graceMs)), deadline]);
  closeIdle();
  await Promise.race([inFlight.idle(), deadline]);
  closeIdle();
  await Promise.race([socketsGone(served, graceMs), deadline]);
  clearTimeout(timer);
}
