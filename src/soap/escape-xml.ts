/**
 * Escaping for text and attribute values written into XML.
 * @module
 */

const SPECIAL = /[&<>"']|[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * Escapes `&`, `<`, `>`, `"` and `'`, and replaces characters XML 1.0 cannot hold (control characters,
 * lone surrogates) with U+FFFD, so that any string can be put in element text or an attribute value.
 */
export function escapeXML(text: string): string {
  return text.replace(SPECIAL, (c) => ENTITY[c] ?? '\uFFFD');
}
