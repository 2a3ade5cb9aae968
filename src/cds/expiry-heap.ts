/**
 * A binary min-heap of ids by expiry time: what expires first is on top, so expired entries can be
 * taken off in O(log n) each without scanning everything that is still live.
 * @module
 */

interface Item {
  readonly expiresAt: number;
  readonly id: string;
}

/** Ids ordered by expiry time (the smallest first). */
export class ExpiryHeap {
  readonly #items: Item[] = [];

  /** Queues `id` until `expiresAt`. */
  push(id: string, expiresAt: number): void {
    const items = this.#items;
    items.push({ id, expiresAt });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.expiresAt <= items[i]!.expiresAt) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** Takes off and returns every item that expired before `now` (same unit as `expiresAt`). */
  popExpired(now: number): Item[] {
    const expired: Item[] = [];
    const items = this.#items;
    while (items.length > 0 && items[0]!.expiresAt < now) {
      expired.push(items[0]!);
      const last = items.pop()!;
      if (items.length > 0) {
        items[0] = last;
        this.#siftDown();
      }
    }
    return expired;
  }

  /** Forgets every item. */
  clear(): void {
    this.#items.length = 0;
  }

  #siftDown(): void {
    const items = this.#items;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && items[left]!.expiresAt < items[smallest]!.expiresAt) smallest = left;
      if (right < items.length && items[right]!.expiresAt < items[smallest]!.expiresAt) smallest = right;
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }

  #swap(a: number, b: number): void {
    const items = this.#items;
    [items[a], items[b]] = [items[b]!, items[a]!];
  }
}
