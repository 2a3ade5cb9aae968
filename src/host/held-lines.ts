/**
 * Log lines held for a few milliseconds: from a request's access line on, fhirgate's loggers hand each
 * stream the held lines as one chunk at the end of the event-loop turn, at most once every
 * 25 ms (`HOLD_MS`; at once past 64 KiB, `HOLD_BYTES`), instead of one `write` a line. A callback already
 * scheduled may write a later hold's lines early: never late, never lost.
 *
 * Why (issue 38 item 2, `host-features` at 16 connections on Node 20): there a turn serves a few requests
 * (about 4 or 5; more at 256 connections), and an asynchronous file stream (`fs.WriteStream`, pino's
 * `file`) started a thread-pool write about once a turn: a futex wake, two context switches on the
 * server's one core and a completion turn each: 0.6–0.9 context switches and 3.3–3.8 system calls a
 * request (`perf stat`), against 0.1 and 2.3 with no access log. A stream that writes synchronously
 * (`process.stdout` to a file or a pipe) made one `write(2)` a line. Held: 0.2–0.35 and 2.5–2.8, Node 20
 * and 24 alike, whatever the number of connections.
 *
 * Why 25 ms and not 5 (issue 38 item 2, the same row, `--cpu-prof` in steady state): each write to an
 * `fs.WriteStream` costs the process about 250 µs whatever its size up to 64 KiB (a thread-pool
 * hand-off on the server's one core, its completion turn), a fixed cost per second that a slower
 * server pays on fewer requests. At 5 ms (200 writes a second) `releaseLines` was 8.0–9.0 µs a request
 * on Node 20 at 16 connections (7% of the host's sampled time) and 4.4 µs on Node 24; at 25 ms,
 * 1.95 µs on Node 20. A process killed outright loses at most the lines of its last 25 ms.
 *
 * What stays: no line is reordered within its stream (once lines are held, every later one waits behind
 * them); `warn` and `error` lines are written at once, after what was held; what is held when the process
 * exits is written on `exit`. Lines logged outside a request, and the lines of a logger that is not one
 * of fhirgate's, are written at once as before.
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../mount/index.js';
import type { LogStream } from './logger.js';

/** The longest a held line waits once its turn has ended, in ms. */
const HOLD_MS = 25;
/** Held text (UTF-16 code units) past which the lines are written at once. */
const HOLD_BYTES = 64 * 1024;

/** The held text per stream while lines are held; `undefined` when lines go out at once. */
let held: Map<LogStream, string> | undefined;
let heldLength = 0;
/** When the held lines were last written (`performance.now()`). */
let releasedAt = -Infinity;
let exitHooked = false;
/** fhirgate's own loggers: the ones whose lines {@link writeLine} writes (another logger gets nothing held for it). */
const holding = new WeakSet<Logger>();

/** Marks `logger` as one that writes through {@link writeLine}; returns it. */
export function holdingLogger(logger: Logger): Logger {
  holding.add(logger);
  return logger;
}

/** Holds the lines of fhirgate's loggers from now on, when `logger` is one of them (see the module's note for how long). */
export function holdLinesOf(logger: Logger): void {
  if (held !== undefined || !holding.has(logger)) return;
  held = new Map();
  setImmediate(endOfTurn);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', releaseLines);
  }
}

/** At the end of the turn: writes what is held if the last write is `HOLD_MS` old, else when it will be. */
function endOfTurn(): void {
  const wait = releasedAt + HOLD_MS - performance.now();
  if (wait <= 0) releaseLines();
  else setTimeout(releaseLines, wait);
}

/** Writes what is held, one chunk a stream, and stops holding. */
function releaseLines(): void {
  const lines = held;
  held = undefined;
  heldLength = 0;
  releasedAt = performance.now();
  if (lines !== undefined) writeHeld(lines);
}

/** A stream that throws is the logger's failure, not a request's: the other streams still get their lines. */
function writeHeld(lines: Map<LogStream, string>): void {
  for (const [stream, text] of lines) {
    try {
      stream.write(text);
    } catch {
      // nothing to report it to: the logger is what failed
    }
  }
}

/** Writes `line` to `stream`, or holds it while lines are held; `urgent` (warn, error) lines go at once, after the held ones. */
export function writeLine(stream: LogStream, line: string, urgent: boolean): void {
  if (held === undefined) {
    stream.write(line);
    return;
  }
  if (urgent) {
    const lines = held;
    held = new Map();
    heldLength = 0;
    writeHeld(lines);
    stream.write(line);
    return;
  }
  const before = held.get(stream);
  held.set(stream, before === undefined ? line : before + line);
  heldLength += line.length;
  if (heldLength >= HOLD_BYTES) releaseLines();
}
