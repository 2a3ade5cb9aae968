/**
 * Re-serializes an XML fragment met inside a SOAP message (a CDA sent as raw XML instead of base64) so
 * that it stands alone: every namespace it uses is declared inside it.
 * @module
 */
import { escapeXML } from './escape-xml.js';
import type { XMLTag } from './secure-parser.js';

const XMLNS_URI = 'http://www.w3.org/2000/xmlns/';
const XML_URI = 'http://www.w3.org/XML/1998/namespace';

/**
 * Collects parser events into a standalone XML string. Namespace declarations written in the fragment
 * are kept; a prefix bound outside the fragment is declared on the first element that needs it.
 *
 * @example
 * ```ts
 * const w = new EmbeddedXMLWriter();
 * createSecureParser(limits, 'ERR_SOAP_CLIENT', { open: (t) => w.open(t), close: () => w.close(), text: (s) => w.text(s) });
 * w.toString();
 * ```
 */
export class EmbeddedXMLWriter {
  readonly #parts: string[] = [];
  readonly #scopes: Map<string, string>[] = [new Map([['', '']])];
  readonly #names: string[] = [];

  #bound(prefix: string): string | undefined {
    for (let i = this.#scopes.length - 1; i >= 0; i -= 1) {
      const uri = this.#scopes[i]!.get(prefix);
      if (uri !== undefined) return uri;
    }
    return undefined;
  }

  /** An element opens. */
  open(tag: XMLTag): void {
    const scope = new Map<string, string>();
    let attrs = '';
    for (const attr of Object.values(tag.attributes)) {
      if (attr.uri === XMLNS_URI) scope.set(attr.prefix === 'xmlns' ? attr.local : '', attr.value);
      attrs += ` ${attr.name}="${escapeXML(attr.value)}"`;
    }
    this.#scopes.push(scope);
    const needed: [string, string][] = [[tag.prefix, tag.uri]];
    for (const attr of Object.values(tag.attributes)) {
      if (attr.prefix !== '' && attr.uri !== XMLNS_URI && attr.uri !== XML_URI) needed.push([attr.prefix, attr.uri]);
    }
    for (const [prefix, uri] of needed) {
      if (this.#bound(prefix) === uri) continue;
      scope.set(prefix, uri);
      attrs += prefix === '' ? ` xmlns="${escapeXML(uri)}"` : ` xmlns:${prefix}="${escapeXML(uri)}"`;
    }
    this.#names.push(tag.name);
    this.#parts.push(`<${tag.name}${attrs}>`);
  }

  /** The innermost open element closes. */
  close(): void {
    this.#scopes.pop();
    this.#parts.push(`</${this.#names.pop()!}>`);
  }

  /** Character data. */
  text(text: string): void {
    this.#parts.push(escapeXML(text));
  }

  /** The fragment written so far, without surrounding white space. */
  toString(): string {
    return this.#parts.join('').trim();
  }
}
