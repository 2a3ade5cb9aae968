/**
 * Re-serializes an XML fragment met inside a SOAP message (a CDA sent as raw XML instead of base64) so
 * that it stands alone: every namespace it uses is declared inside it.
 * @module
 */
import { escapeXML } from './escape-xml.js';
import { NamespaceScope } from './namespace-scope.js';
import type { XMLTag } from './secure-parser.js';

const XMLNS_URI = 'http://www.w3.org/2000/xmlns/';
const XML_URI = 'http://www.w3.org/XML/1998/namespace';

/**
 * Collects parser events into a standalone XML string. Namespace declarations written in the fragment
 * are kept; a prefix bound outside the fragment is declared on the first element that needs it.
 */
export class EmbeddedXMLWriter {
  /** The XML written so far: appended to, never joined (V8 keeps the pieces until the string is read). */
  #xml = '';
  readonly #scope = new NamespaceScope();
  readonly #names: string[] = [];

  constructor() {
    this.#scope.declare('', '');
  }

  /** An element opens. */
  open(tag: XMLTag): void {
    this.#scope.enter();
    const { attributes } = tag;
    let attrs = '';
    for (const name in attributes) {
      const attr = attributes[name]!;
      if (attr.uri === XMLNS_URI) this.#scope.declare(attr.prefix === 'xmlns' ? attr.local : '', attr.value);
      attrs += ` ${name}="${escapeXML(attr.value)}"`;
    }
    attrs += this.#need(tag.prefix, tag.uri);
    for (const name in attributes) {
      const attr = attributes[name]!;
      if (attr.prefix !== '' && attr.uri !== XMLNS_URI && attr.uri !== XML_URI) attrs += this.#need(attr.prefix, attr.uri);
    }
    this.#names.push(tag.name);
    this.#xml += `<${tag.name}${attrs}>`;
  }

  /** The declaration `prefix` needs to mean `uri` in the element being opened, or `''` when it already does. */
  #need(prefix: string, uri: string): string {
    if (this.#scope.lookup(prefix) === uri) return '';
    this.#scope.declare(prefix, uri);
    return prefix === '' ? ` xmlns="${escapeXML(uri)}"` : ` xmlns:${prefix}="${escapeXML(uri)}"`;
  }

  /** The innermost open element closes. */
  close(): void {
    this.#scope.leave();
    this.#xml += `</${this.#names.pop()!}>`;
  }

  /** Character data. */
  text(text: string): void {
    this.#xml += escapeXML(text);
  }

  /** The fragment written so far, without surrounding white space. */
  toString(): string {
    return this.#xml.trim();
  }
}
