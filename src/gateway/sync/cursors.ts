/**
 * Async iterators held in a bridge worker and stepped from the calling thread one call at a time: a
 * sync caller cannot hold an async iterator, so it holds a number instead. At most `maxOpen` are held:
 * opening one more closes the least recently used.
 * @module
 */
import { FhirgateError } from '../../errors.js';

/**
 * Open async iterators by cursor number. A cursor is dropped once its iterator is done, has thrown,
 * or was returned, and when it is the least recently used (opened or stepped) of `maxOpen` open cursors
 * and another is opened: its iterator's `return()` runs, and its next step throws `ERR_CLOSED`.
 */
export class CursorTable {
  readonly #maxOpen: number;
  /** Open iterators; insertion order is use order, the least recently used first. */
  readonly #open = new Map<number, AsyncIterator<unknown>>();
  #last = 0;

  /** `maxOpen`: an integer >= 1, checked by the caller (the gateway's `maxOpenCursors`). */
  constructor(maxOpen: number) {
    this.#maxOpen = maxOpen;
  }

  /** How many cursors are open. */
  get size(): number {
    return this.#open.size;
  }

  /**
   * Keeps `iterable`'s iterator and returns its cursor number; with `maxOpen` cursors already open, the
   * least recently used is closed first.
   */
  open(iterable: AsyncIterable<unknown>): number {
    const iterator = iterable[Symbol.asyncIterator]();
    for (const oldest of this.#open.keys()) {
      if (this.#open.size < this.#maxOpen) break;
      void this.return(oldest).catch(() => {
        // Nobody is waiting for an evicted iterator: what its return() throws has no one to go to.
      });
    }
    const id = ++this.#last;
    this.#open.set(id, iterator);
    return id;
  }

  /**
   * The next step of a cursor. A cursor that was opened and is closed (done, thrown, returned, or
   * evicted as the least recently used) throws `FhirgateError('ERR_CLOSED')`; one never opened, a
   * `RangeError`.
   */
  async next(id: number): Promise<IteratorResult<unknown>> {
    const iterator = this.#open.get(id);
    if (iterator === undefined) {
      if (!Number.isSafeInteger(id) || id < 1 || id > this.#last) throw new RangeError(`cursor ${String(id)} was never open`);
      throw new FhirgateError(
        'ERR_CLOSED',
        `this iterator was closed: more than ${this.#maxOpen} pages()/searchAll() iterators were open at once (maxOpenCursors), and it was the least recently used; finish iterators or call their return()`,
      );
    }
    // Stepping makes it the most recently used.
    this.#open.delete(id);
    this.#open.set(id, iterator);
    try {
      const step = await iterator.next();
      if (step.done === true) this.#open.delete(id);
      return step;
    } catch (err) {
      this.#open.delete(id);
      throw err;
    }
  }

  /** Ends a cursor early (its iterator's `return()` runs); an unknown cursor is ignored. */
  async return(id: number): Promise<void> {
    const iterator = this.#open.get(id);
    this.#open.delete(id);
    await iterator?.return?.();
  }
}
