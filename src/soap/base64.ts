/**
 * Strict base64 decoding for `xs:base64Binary` content.
 * @module
 */
import { FhirgateError } from '../errors.js';

const WHITE_SPACE = /[ \t\r\n]+/g;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Strictly read base64: the bytes, and the text without white space when it is what Node would write for them. */
export interface ReadBase64 {
  readonly bytes: Buffer;
  /** The white-space-free text, when it equals `bytes.toString('base64')` (zero bits before the padding); else `undefined`. */
  readonly canonical: string | undefined;
}

/**
 * {@link decodeBase64Strict}, also giving the compact text when it is the canonical encoding of the
 * bytes, so that an answer carrying the same bytes can reuse it instead of encoding them again.
 *
 * Node's decoder is lenient (it skips characters outside the alphabet, stops at `=`, reads `-` and `_`
 * as `+` and `/`, and keeps only the low byte of characters past U+00FF), so strictness is checked
 * around it: ASCII only, no `-` or `_`, and the decoded length must be exactly that of valid padded
 * text of this length, which a skipped or misplaced character always shortens. No per-character
 * regular expression over the text (on a 1 MB document that scan cost 7 ms, the decode 0.5 ms).
 *
 * @example
 * ```ts
 * readBase64('dGVz\r\ndGluZw==').canonical; // 'dGVzdGluZw=='
 * ```
 */
export function readBase64(text: string): ReadBase64 {
  const compact = text.replace(WHITE_SPACE, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  const invalid = () => new FhirgateError('ERR_SOAP_CLIENT', 'Invalid base64 content');
  if (compact.length % 4 !== 0 || Buffer.byteLength(compact, 'utf8') !== compact.length || compact.includes('-') || compact.includes('_')) {
    throw invalid();
  }
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length !== (compact.length / 4) * 3 - padding) throw invalid();
  const lastBits = padding === 0 ? 0 : ALPHABET.indexOf(compact.charAt(compact.length - padding - 1)) & (padding === 2 ? 0x0f : 0x03);
  return { bytes, canonical: lastBits === 0 ? compact : undefined };
}

/**
 * Decodes base64 (RFC 4648 §4 alphabet, padding required) where white space and line breaks may appear
 * anywhere, as XML Schema's `base64Binary` allows. Anything else — the URL-safe alphabet, a missing or
 * misplaced `=`, a stray character — throws `FhirgateError('ERR_SOAP_CLIENT')`.
 *
 * @example
 * ```ts
 * decodeBase64Strict('dGVz\r\ndGluZw==').toString(); // 'testing'
 * ```
 */
export function decodeBase64Strict(text: string): Buffer {
  return readBase64(text).bytes;
}
