/**
 * Strict base64 decoding for `xs:base64Binary` content.
 * @module
 */
import { FhirgateError } from '../errors.js';

const WHITE_SPACE = /[ \t\r\n]+/g;
const NOT_ALPHABET = /[^A-Za-z0-9+/]/;

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
  const compact = text.replace(WHITE_SPACE, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  if (compact.length % 4 !== 0 || NOT_ALPHABET.test(compact.slice(0, compact.length - padding))) {
    throw new FhirgateError('ERR_SOAP_CLIENT', 'Invalid base64 content');
  }
  return Buffer.from(compact, 'base64');
}
