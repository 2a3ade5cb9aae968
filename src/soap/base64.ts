/**
 * Strict base64 decoding for `xs:base64Binary` content.
 * @module
 */
import { FhirgateError } from '../errors.js';

const WHITE_SPACE = /[ \t\r\n]+/g;

/** Whether `text` holds any of the white space XML Schema lets base64 carry (four native searches). */
function hasWhiteSpace(text: string): boolean {
  return text.includes('\n') || text.includes(' ') || text.includes('\r') || text.includes('\t');
}

/** The last `count` characters of the concatenation of `parts`. */
function lastChars(parts: readonly string[], count: number): string {
  let text = '';
  for (let i = parts.length - 1; i >= 0 && text.length < count; i -= 1) text = `${parts[i]!.slice(-count)}${text}`;
  return text.slice(-count);
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
  return decodeBase64Parts([text]);
}

/**
 * {@link decodeBase64Strict} of the concatenation of `parts` (text as a parser handed it on), each part
 * decoded straight into the one buffer of the result: the text is never joined into one string, and the
 * bytes are never copied again.
 *
 * Node's decoder is lenient (it skips characters outside the alphabet, stops at `=`, reads `-` and `_`
 * as `+` and `/`, and keeps only the low byte of characters past U+00FF), so strictness is checked
 * around it: ASCII only, no `-` or `_`, and the decoded length must be exactly that of valid padded
 * text of this length, which a skipped or misplaced character always shortens (in any part). No
 * per-character regular expression over the text (on a 1 MB document that scan cost 7 ms, the decode
 * 0.5 ms), and white space is only removed from a part that has some.
 *
 * @example
 * ```ts
 * decodeBase64Parts(['dGVzd', 'GluZw', '==']).toString(); // 'testing'
 * ```
 */
export function decodeBase64Parts(parts: readonly string[]): Buffer {
  const invalid = () => new FhirgateError('ERR_SOAP_CLIENT', 'Invalid base64 content');
  const compact = parts.map((part) => (hasWhiteSpace(part) ? part.replace(WHITE_SPACE, '') : part));
  let length = 0;
  for (const part of compact) {
    if (Buffer.byteLength(part, 'utf8') !== part.length || part.includes('-') || part.includes('_')) throw invalid();
    length += part.length;
  }
  if (length % 4 !== 0) throw invalid();
  const end = lastChars(compact, 2);
  const size = (length / 4) * 3 - (end.endsWith('==') ? 2 : end.endsWith('=') ? 1 : 0);
  const bytes = Buffer.allocUnsafe(size);
  let written = 0;
  let carry = '';
  for (const part of compact) {
    const text = `${carry}${part}`;
    const whole = text.length - (text.length % 4);
    if (whole > 0) written += bytes.write(whole === text.length ? text : text.slice(0, whole), written, 'base64');
    carry = text.slice(whole);
  }
  if (written !== size) throw invalid();
  return bytes;
}
