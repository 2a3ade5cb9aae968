/**
 * Sync iterators over async iterators held in the bridge worker (see `CursorTable`): each step is
 * one blocking call; an iterator dropped unfinished has its worker cursor returned once it is
 * garbage-collected.
 * @module
 */
import type { SyncBridge } from './bridge.js';

/** The worker cursor of one iterator, once its first step opened it. */
interface CursorHandle {
  id: number | undefined;
}

/**
 * Opens sync iterators over the worker's async iterators.
 *
 * @example
 * ```ts
 * const iterators = new WorkerIterators(bridge);
 * const pages = iterators.open('pages', ['Patient', {}], (m, a) => bridge.call(m, a, 35_000), (c) => bridge.call('return', [c], 30_000));
 * ```
 */
export class WorkerIterators {
  readonly #bridge: SyncBridge;
  /** Closes the worker cursor of an iterator that was dropped unfinished, once it is garbage-collected. */
  readonly #finalizer = new FinalizationRegistry<CursorHandle>((handle) => {
    if (handle.id !== undefined) this.#bridge.send('return', [handle.id]);
  });

  constructor(bridge: SyncBridge) {
    this.#bridge = bridge;
  }

  /**
   * A sync iterator over the worker's `method(...args)`: `step` makes the blocking calls that open
   * (`iterate`) and advance (`next`) the cursor, `finish` returns it when the loop is left early.
   *
   * @example
   * ```ts
   * for (const item of iterators.open('searchAll', ['Patient', {}], step, finish)) console.log(item);
   * ```
   */
  open(method: string, args: readonly unknown[], step: (method: string, args: unknown[]) => unknown, finish: (cursor: number) => void): Generator<unknown> {
    const handle: CursorHandle = { id: undefined };
    const iterator = this.#steps(handle, method, args, step, finish);
    this.#finalizer.register(iterator, handle, handle);
    return iterator;
  }

  /** `handle` (which must not reference the generator) tells the finalizer which cursor to return. */
  *#steps(handle: CursorHandle, method: string, args: readonly unknown[], step: (method: string, args: unknown[]) => unknown, finish: (cursor: number) => void): Generator<unknown> {
    const cursor = step('iterate', [method, args]) as number;
    handle.id = cursor;
    let done = false;
    try {
      for (;;) {
        const next = step('next', [cursor]) as IteratorResult<unknown, unknown>;
        if (next.done === true) break;
        yield next.value;
      }
      done = true;
    } finally {
      this.#finalizer.unregister(handle);
      handle.id = undefined;
      // A loop left early (break, or a step that failed) releases the worker's iterator.
      if (!done && !this.#bridge.closed) finish(cursor);
    }
  }
}
