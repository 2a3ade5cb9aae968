/**
 * Async iterators held in a bridge worker and stepped from the calling thread one call at a time: a
 * sync caller cannot hold an async iterator, so it holds a number instead.
 * @module
 */

/**
 * Open async iterators by cursor number. A cursor is dropped once its iterator is done, has thrown,
 * or was returned.
 *
 * @example
 * ```ts
 * const cursors = new CursorTable();
 * const id = cursors.open(gateway.pages('Patient', {}));
 * await cursors.next(id); // { done: false, value: firstPage }
 * await cursors.return(id);
 * ```
 */
export class CursorTable {
  readonly #open = new Map<number, AsyncIterator<unknown>>();
  #last = 0;

  /**
   * Keeps `iterable`'s iterator and returns its cursor number.
   *
   * @example
   * ```ts
   * const id = cursors.open(gateway.searchAll('Patient'));
   * ```
   */
  open(iterable: AsyncIterable<unknown>): number {
    const id = ++this.#last;
    this.#open.set(id, iterable[Symbol.asyncIterator]());
    return id;
  }

  /**
   * The next step of a cursor; a cursor that is unknown (done, thrown, returned) is a `RangeError`.
   *
   * @example
   * ```ts
   * const step = await cursors.next(id);
   * if (step.done) console.log('last page seen');
   * ```
   */
  async next(id: number): Promise<IteratorResult<unknown>> {
    const iterator = this.#open.get(id);
    if (iterator === undefined) throw new RangeError(`cursor ${String(id)} is not open`);
    try {
      const step = await iterator.next();
      if (step.done === true) this.#open.delete(id);
      return step;
    } catch (err) {
      this.#open.delete(id);
      throw err;
    }
  }

  /**
   * Ends a cursor early (its iterator's `return()` runs); an unknown cursor is ignored.
   *
   * @example
   * ```ts
   * await cursors.return(id);
   * ```
   */
  async return(id: number): Promise<void> {
    const iterator = this.#open.get(id);
    this.#open.delete(id);
    await iterator?.return?.();
  }
}
