/**
 * NDJSON read from a stream one line at a time: only the line being read is held, never the file.
 * @module
 */
import type { Readable } from 'node:stream';
import { FhirgateError } from '../../errors.js';

/**
 * One line of an NDJSON stream: its text (without the line break), its number from 1, and whether it
 * ended without a line break (the last line of the stream).
 */
export interface NdjsonLine {
  readonly text: string;
  readonly number: number;
  readonly unterminated: boolean;
}

/**
 * The lines of `stream`, read as the consumer asks for them (the stream is paused in between, so
 * that a slow consumer slows the sender down). A line longer than `maxLineBytes` is
 * `ERR_BULK_FILE`; `counter.bytes` grows with every chunk read.
 */
export async function* ndjsonLines(stream: Readable, maxLineBytes: number, counter: { bytes: number }, what: string): AsyncGenerator<NdjsonLine, void, undefined> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let number = 0;
  const tooLong = (): FhirgateError => new FhirgateError('ERR_BULK_FILE', `${what}: line ${number + 1} is longer than ${maxLineBytes} bytes`);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    counter.bytes += chunk.length;
    let start = 0;
    for (let end = chunk.indexOf(10, start); end >= 0; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end);
      if (heldBytes + piece.length > maxLineBytes) throw tooLong();
      const bytes = heldBytes === 0 ? piece : Buffer.concat([...held, piece]);
      held = [];
      heldBytes = 0;
      start = end + 1;
      yield { text: withoutCr(bytes.toString('utf8')), number: ++number, unterminated: false };
    }
    if (start < chunk.length) {
      heldBytes += chunk.length - start;
      if (heldBytes > maxLineBytes) throw tooLong();
      held.push(chunk.subarray(start));
    }
  }
  if (heldBytes > 0) yield { text: withoutCr(Buffer.concat(held).toString('utf8')), number: ++number, unterminated: true };
}

function withoutCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
