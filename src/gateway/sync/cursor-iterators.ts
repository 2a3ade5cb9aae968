/**
 * The sync iterators of `FHIRGateway.pages()`, `searchAll()`, `bulkExport()` and `bulkExportAll()`:
 * each steps the worker gateway's async iterator through a cursor, one blocking call an item, and a
 * cursor dropped unfinished is returned once its iterator is garbage-collected.
 * @module
 */
import type { PagingLimits } from '../core/paging.js';
import type { SyncPagingOptions } from './options.js';

/** How the iterators reach the worker. */
export interface CursorChannel {
  /**
   * A blocking call to the worker that reaches the FHIR server of `source` (`iterate`, `next`), waiting
   * `waitMs` at most (default: the source's time-out).
   */
  io(method: 'iterate' | 'next', args: unknown[], source: string | undefined, waitMs?: number): unknown;
  /** Returns a cursor, blocking (a loop left early); skipped when the worker is gone. */
  release(cursor: number): void;
  /** Returns a cursor without waiting (from the garbage collector's callback). */
  releaseLater(cursor: number): void;
}

/** The worker cursor of one iterator, once its first step opened it. */
interface CursorHandle {
  id: number | undefined;
}

/** Makes the sync iterators of one gateway. */
export class SyncCursors {
  readonly #channel: CursorChannel;
  /** Returns the worker cursor of an iterator that was dropped unfinished, once it is garbage-collected. */
  readonly #finalizer = new FinalizationRegistry<CursorHandle>((handle) => {
    if (handle.id !== undefined) this.#channel.releaseLater(handle.id);
  });

  constructor(channel: CursorChannel) {
    this.#channel = channel;
  }

  /**
   * A sync iterator over the worker gateway's async iterator `method(...args)`, whose requests go to
   * `source`; each step waits `waitMs` at most (default: the source's time-out).
   */
  iterate(method: string, args: readonly unknown[], source: string | undefined, waitMs?: number): Generator<unknown> {
    const handle: CursorHandle = { id: undefined };
    const iterator = this.#cursor(handle, method, args, source, waitMs);
    this.#finalizer.register(iterator, handle, handle);
    return iterator;
  }

  /**
   * Steps the worker's iterator through a cursor: opened on the first step, advanced one item a call,
   * closed when the loop ends or breaks. `handle` (which must not reference the generator) tells the
   * finalizer which cursor to return.
   */
  *#cursor(handle: CursorHandle, method: string, args: readonly unknown[], source: string | undefined, waitMs: number | undefined): Generator<unknown> {
    const cursor = this.#channel.io('iterate', [method, args], source, waitMs) as number;
    handle.id = cursor;
    let done = false;
    try {
      for (;;) {
        const step = this.#channel.io('next', [cursor], source, waitMs) as IteratorResult<unknown, unknown>;
        if (step.done === true) break;
        yield step.value;
      }
      done = true;
    } finally {
      this.#finalizer.unregister(handle);
      handle.id = undefined;
      // A loop left early (break, or a step that failed) releases the worker's iterator.
      if (!done) this.#channel.release(cursor);
    }
  }
}

/** Paging limits as options the worker gateway takes again (no `Infinity`: it is not a limit). */
export function remoteLimits(limits: PagingLimits): SyncPagingOptions {
  return {
    ...(Number.isFinite(limits.maxPages) ? { maxPages: limits.maxPages } : {}),
    ...(Number.isFinite(limits.maxResources) ? { maxResources: limits.maxResources } : {}),
  };
}
