/**
 * The `Document` parameter of a NoteReader request, read while the envelope streams in.
 * @module
 */
import { Base64Reader } from './base64.js';
import type { TextSink } from './read-envelope.js';

/**
 * Takes the text of a `Document` element piece by piece, leaves out the white space around it all (as
 * `String#trim` would on the whole text) and decodes the rest as strict base64 as it comes, so that a
 * megabyte document is never held as text.
 */
export class DocumentReader implements TextSink {
  readonly #base64 = new Base64Reader();
  #started = false;
  /** White space read after the last other character: trimmed away unless more text follows. */
  #held: string[] = [];

  /** Whether nothing but white space was read. */
  get blank(): boolean {
    return !this.#started;
  }

  /** Reads the next piece of the element's text. */
  write(text: string): void {
    let piece = text;
    if (!this.#started) {
      piece = piece.trimStart();
      if (piece === '') return;
      this.#started = true;
    }
    const end = piece.trimEnd().length;
    if (end === 0) {
      this.#held.push(piece);
      return;
    }
    for (const space of this.#held) this.#base64.write(space);
    this.#held = [];
    this.#base64.write(end === piece.length ? piece : piece.slice(0, end));
    if (end < piece.length) this.#held.push(piece.slice(end));
  }

  /** The decoded bytes; throws `FhirgateError('ERR_SOAP_CLIENT')` unless the trimmed text is strict base64. */
  bytes(): Buffer {
    return this.#base64.end();
  }
}
