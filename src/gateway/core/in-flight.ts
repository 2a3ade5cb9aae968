/**
 * The public calls a gateway has in flight, so that `close()` lets them finish and later calls are
 * refused with `ERR_CLOSED`.
 * @module
 */
import { FhirgateError } from '../../errors.js';

/** Counts running calls and closes once, after the last one. */
export class InFlightCalls {
  #count = 0;
  /** Resolves the wait of `close()` when `#count` reaches 0. */
  #idle: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** Throws `ERR_CLOSED` once {@link close} was called. */
  assertOpen(): void {
    if (this.closed) throw closedError();
  }

  /**
   * Runs `body` counted (counted at once: the part of `body` before its first `await` is synchronous);
   * rejects with `ERR_CLOSED` after {@link close}.
   */
  run<T>(body: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    this.#count++;
    let running: Promise<T>;
    try {
      running = body();
    } catch (err) {
      this.#leave();
      return Promise.reject(err);
    }
    return running.then(this.#done, this.#failed) as Promise<T>;
  }

  // One pair of settle handlers per gateway, not an async frame per call: the read path's CPU profile
  // showed each promise layer of a call as a visible share of the gateway's cost over raw node:http.
  readonly #done = (value: unknown): unknown => {
    this.#leave();
    return value;
  };
  readonly #failed = (err: unknown): never => {
    this.#leave();
    throw err;
  };

  #leave(): void {
    if (--this.#count === 0) this.#idle?.();
  }

  /**
   * Refuses new calls, waits for the running ones, then runs `release`. Idempotent: later calls get
   * the first call's Promise.
   */
  close(release: () => Promise<void>): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#count > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
      await release();
    })();
    return this.#closing;
  }
}

function closedError(): FhirgateError {
  return new FhirgateError('ERR_CLOSED', 'the gateway is closed');
}
