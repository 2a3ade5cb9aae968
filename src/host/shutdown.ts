/**
 * Graceful shutdown: track in-flight requests, stop servers, wait a bounded time, then abort.
 * @module
 */
import type { Server } from 'node:http';

/** Something in flight that can be aborted. */
export interface Abortable {
  abort(reason: unknown): void;
}

/**
 * The requests being answered: a count, and the ones that can be aborted (those whose handler asked
 * for an abort signal; aborting the others would change nothing). Counting rather than keeping every
 * request in a set: a `Set` insert and delete per request was a visible share of the host's own CPU on
 * the transform endpoint (`node --cpu-prof`).
 *
 * @example
 * ```ts
 * const inFlight = new InFlight();
 * inFlight.enter(); // … inFlight.watch(request) once it has a signal; inFlight.leave(request) when answered
 * await inFlight.idle();
 * ```
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
 * Stops `servers` gracefully: no new connections, idle keep-alive connections closed at once, busy ones
 * closed after their answer. When `inFlight` is not idle within `graceMs`, in-flight requests are
 * aborted with `reason` and every connection is cut. Resolves when every server has closed and
 * nothing is in flight any more (or the grace period is over).
 *
 * @example
 * ```ts
 * await stopServers([server], inFlight, 10_000, new FhirgateError('ERR_CLOSED', 'shutting down'));
 * ```
 */
export async function stopServers(servers: readonly Server[], inFlight: InFlight, graceMs: number, reason: unknown): Promise<void> {
  const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      inFlight.abortAll(reason);
      for (const server of servers) server.closeAllConnections();
      resolve();
    }, graceMs);
  });
  for (const server of servers) server.closeIdleConnections();
  await Promise.race([inFlight.idle(), deadline]);
  for (const server of servers) server.closeIdleConnections();
  await Promise.race([closed, deadline]);
  clearTimeout(timer);
}
