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
 * The set of requests being answered, with a way to wait until none is left.
 *
 * @example
 * ```ts
 * const inFlight = new InFlight();
 * inFlight.add(request); // … inFlight.delete(request) when answered
 * await inFlight.idle();
 * ```
 */
export class InFlight {
  readonly #items = new Set<Abortable>();
  readonly #waiters = new Set<() => void>();

  get size(): number {
    return this.#items.size;
  }

  add(item: Abortable): void {
    this.#items.add(item);
  }

  delete(item: Abortable): void {
    this.#items.delete(item);
    if (this.#items.size === 0) for (const wake of this.#waiters) wake();
  }

  /** Resolves once nothing is in flight. */
  idle(): Promise<void> {
    if (this.#items.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.#waiters.delete(wake);
        resolve();
      };
      this.#waiters.add(wake);
    });
  }

  /** Aborts everything still in flight. */
  abortAll(reason: unknown): void {
    for (const item of this.#items) item.abort(reason);
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
