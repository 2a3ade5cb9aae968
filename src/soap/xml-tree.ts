/**
 * A small element tree built with the secure parser, for documents read whole (CDA, WSDL in tests).
 * @module
 */
import type { ErrorCode } from '../errors.js';
import { parseSecurely } from './secure-parser.js';
import type { XMLLimits } from './secure-parser.js';

/** An element: local name, namespace, attributes and children (elements and text, in order). */
export interface XMLElement {
  /** The local name (`ClinicalDocument`). */
  readonly name: string;
  /** The namespace URI (`''` when none). */
  readonly uri: string;
  /** The prefix the source used (`''` when none). */
  readonly prefix: string;
  /**
   * The attributes without a namespace, by name (`code`, `displayName`); namespaced ones as
   * `{uri}local` (`{http://www.w3.org/2001/XMLSchema-instance}type`). Namespace declarations left out.
   */
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly (XMLElement | string)[];
}

const XMLNS_URI = 'http://www.w3.org/2000/xmlns/';

/**
 * Parses `text` into an {@link XMLElement} tree, refusing DOCTYPEs and unknown entities and enforcing
 * `limits`. Failures throw `FhirgateError(code, 'Invalid XML: …')`.
 */
export function parseXMLTree(text: string, limits: XMLLimits, code: ErrorCode): XMLElement {
  const stack: { children: (XMLElement | string)[] }[] = [{ children: [] }];
  parseSecurely(text, limits, code, {
    open: (tag) => {
      const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
      for (const a of Object.values(tag.attributes)) {
        if (a.uri === XMLNS_URI) continue;
        attributes[a.uri === '' ? a.local : `{${a.uri}}${a.local}`] = a.value;
      }
      const element = { name: tag.local, uri: tag.uri, prefix: tag.prefix, attributes, children: [] };
      stack.at(-1)!.children.push(element);
      stack.push(element);
    },
    close: () => void stack.pop(),
    text: (t) => {
      if (stack.length > 1) stack.at(-1)!.children.push(t);
    },
  });
  return stack[0]!.children[0] as XMLElement;
}

/** The child elements of `el`, optionally only those with local name `name`. */
export function children(el: XMLElement | undefined, name?: string): XMLElement[] {
  if (!el) return [];
  return el.children.filter((c): c is XMLElement => typeof c !== 'string' && (name === undefined || c.name === name));
}

/** Follows a path of local names from `el`, taking the first match at each step. */
export function child(el: XMLElement | undefined, ...path: string[]): XMLElement | undefined {
  let current = el;
  for (const name of path) current = children(current, name)[0];
  return current;
}

/** Every descendant element of `el` with local name `name`, in document order. */
export function descendants(el: XMLElement | undefined, name: string): XMLElement[] {
  const found: XMLElement[] = [];
  const walk = (e: XMLElement): void => {
    for (const c of children(e)) {
      if (c.name === name) found.push(c);
      walk(c);
    }
  };
  if (el) walk(el);
  return found;
}

/** The text content of `el` and its descendants, joined. */
export function textContent(el: XMLElement | undefined): string {
  if (!el) return '';
  return el.children.map((c) => (typeof c === 'string' ? c : textContent(c))).join('');
}
