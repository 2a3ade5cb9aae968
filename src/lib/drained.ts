/**
 * Waiting for a full writable stream to take more.
 * @module
 */
import type { EventEmitter } from 'node:events';

/** What {@link drained} needs of a stream: `node:stream` Writables and `http.ServerResponse` have it. */
export interface DrainableStream extends EventEmitter {
  readonly destroyed: boolean;
}

/**
 * Resolves on the stream's next `drain`, `error` or `close` (the caller checks which), at once when it is
 * already destroyed, and leaves none of its listeners behind: racing `once(stream, 'drain')` against
 * `once(stream, 'close')` leaves the loser attached, one more at every full buffer.
 */
export function drained(stream: DrainableStream): Promise<void> {
  if (stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('error', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('error', done);
    stream.on('close', done);
  });
}
