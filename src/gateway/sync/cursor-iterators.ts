/**
 * The sync iterators of `FHIRGateway.pages()` and `searchAll()`: each steps the worker gateway's async
 * iterator through a cursor, one blocking call an item, and a cursor dropped unfinished is returned
 * once its iterator is garbage-collected.
 * @module
 */
import type { ResourceType } from '../../fhir/index.js';
import type { SearchParams } from '../handlers/search-source.js';
import type { PagingLimits } from '../paging.js';

/**
 * How the iterators reach the worker.
 *
 * @example
 * ```ts
 * const channel: CursorChannel = { io: (m, a, s) => bridgeCall(m, a, s), release: (c) => bridgeCall('return', [c]), releaseLater: (c) => bridge.send('return', [c]) };
 * ```
 */
export interface CursorChannel {
  /** A blocking call to the worker that reaches the FHIR server of `source` (`iterate`, `next`). */
  io(method: 'iterate' | 'next', args: unknown[], source: string | undefined): unknown;
  /** Returns a cursor, blocking (a loop left early); skipped when the worker is gone. */
  release(cursor: number): void;
  /** Returns a cursor without waiting (from the garbage collector's callback). */
  releaseLater(cursor: number): void;
}

/** The worker cursor of one iterator, once its first step opened it. */
interface CursorHandle {
  id: number | undefined;
}

/**
 * Makes the sync iterators of one gateway.
 *
 * @example
 * ```ts
 * const cursors = new SyncCursors(channel);
 * for (const page of cursors.iterate('pages', ['Patient', {}, 'epic'], checkPagingOptions({ maxPages: 2 }, false))) console.log(page);
 * ```
 */
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
   * A sync iterator over the worker gateway's `pages` or `searchAll` for `[type, params, source]`.
   *
   * @example
   * ```ts
   * const resources = Array.from(cursors.iterate('searchAll', ['Observation', { patient: '1' }, undefined], limits));
   * ```
   */
  iterate(method: 'pages' | 'searchAll', search: [type: ResourceType, params: SearchParams, source: string | undefined], limits: PagingLimits): Generator<unknown> {
    const handle: CursorHandle = { id: undefined };
    const iterator = this.#cursor(handle, method, search, limits);
    this.#finalizer.register(iterator, handle, handle);
    return iterator;
  }

  /**
   * Steps the worker's iterator through a cursor: opened on the first step, advanced one item a call,
   * closed when the loop ends or breaks. `handle` (which must not reference the generator) tells the
   * finalizer which cursor to return.
   */
  *#cursor(handle: CursorHandle, method: 'pages' | 'searchAll', search: [ResourceType, SearchParams, string | undefined], limits: PagingLimits): Generator<unknown> {
    const source = search[2];
    const options = {
      ...(Number.isFinite(limits.maxPages) ? { maxPages: limits.maxPages } : {}),
      ...(Number.isFinite(limits.maxResources) ? { maxResources: limits.maxResources } : {}),
    };
    const cursor = this.#channel.io('iterate', [method, [...search, options]], source) as number;
    handle.id = cursor;
    let done = false;
    try {
      for (;;) {
        const step = this.#channel.io('next', [cursor], source) as IteratorResult<unknown, unknown>;
        if (step.done === true) break;
        yield step.value;
      }
      done = true;
    } finally {
      this.#finalizer.unregister(handle);
      handle.id = undefined;
      // A loop left early (break, or a page that failed) releases the worker's iterator.
      if (!done) this.#channel.release(cursor);
    }
  }
}
