/**
 * The JSON logger's lines for one stream, gathered during a turn of the event loop and handed to the
 * stream as one string when the turn ends (`setImmediate`). A `write()` per line cost a queue entry and a
 * Buffer per line in a `Writable` (an `fs.WriteStream`), and a system call per line on a piped stdout.
 *
 * Nothing held is lost or reordered: the logger flushes before a `warn`/`error` line, the host's
 * `close()` flushes, the process's `exit` event flushes every batch still holding lines, and a deferred
 * write that throws keeps its lines, in order, for the next write, which is made at once so that a stream
 * that keeps failing throws to the code that logs (as a `write()` per line did).
 * @module
 */
import type { LogStream } from './logger.js';

/** The batches holding lines, flushed when the process exits; a batch is here only while it holds lines. */
const holding = new Set<LogBatch>();
/** One batch a stream, so that the lines of several loggers sharing a stream keep their order. */
const batches = new WeakMap<LogStream, LogBatch>();
let exitHooked = false;

function flushOnExit(): void {
  for (const batch of holding) {
    try {
      batch.flush();
    } catch {
      // The process is ending and the stream refuses: there is nobody left to tell.
    }
  }
}

/** Marks `batch` as holding lines, for the process's `exit` event (listened to from the first line on). */
function hold(batch: LogBatch): void {
  holding.add(batch);
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', flushOnExit);
}

/** The batch of `stream`, shared by every logger writing to it. */
export function batchOf(stream: LogStream): LogBatch {
  let batch = batches.get(stream);
  if (batch === undefined) batches.set(stream, (batch = new LogBatch(stream)));
  return batch;
}

/** Lines waiting for the end of the loop turn, for one stream. */
export class LogBatch {
  readonly #stream: LogStream;
  #text = '';
  #timer: NodeJS.Immediate | undefined;
  /** Set when a deferred write threw: lines then go out at once, so that the next caller sees the error. */
  #direct = false;
  readonly #deferred = (): void => {
    this.#timer = undefined;
    try {
      this.flush();
    } catch {
      // Thrown outside any caller: the lines stay held (flush put them back) and the next line is written
      // at once with them, so that a stream that keeps failing throws to the code that logs, as before.
      this.#direct = true;
    }
  };

  constructor(stream: LogStream) {
    this.#stream = stream;
  }

  /** Holds `line` until the turn ends; after a failed deferred write, writes it at once with what is held. */
  add(line: string): void {
    // Held from the first line on, also when a flush emptied the batch while its write stays scheduled.
    if (this.#text === '') hold(this);
    this.#text += line;
    if (this.#direct) {
      this.#direct = false;
      this.#writeHeld(false);
      return;
    }
    if (this.#timer === undefined) this.#timer = setImmediate(this.#deferred);
  }

  /**
   * Writes what is held now, in one `write()`. Throws what the stream throws; the lines are then kept.
   * The scheduled write stays scheduled and finds nothing to do: a `clearImmediate` here, called from an
   * `uncaughtException` handler while Node runs its immediates (a crashing cluster worker's last `error`
   * line), broke Node's immediate queue: an endless run of `_idleNext` TypeErrors.
   */
  flush(): void {
    this.#writeHeld(true);
  }

  /** `keep`: a throwing write keeps the lines for the next one; else they go, and the caller gets the error. */
  #writeHeld(keep: boolean): void {
    holding.delete(this);
    const text = this.#text;
    if (text === '') return;
    this.#text = '';
    try {
      this.#stream.write(text);
    } catch (error) {
      if (keep) {
        this.#text = text + this.#text;
        holding.add(this);
      }
      throw error;
    }
  }
}
