/**
 * The one place fhirgate builds a `saxes` parser. It refuses what makes XML dangerous (a DOCTYPE, and
 * so any entity declaration; entity references other than the five predefined ones and character
 * references), and limits nesting depth, element count, attributes and namespace declarations per
 * element and the length of an attribute value, so that no document costs more than a bounded time per
 * byte.
 * @module
 */
import { SaxesParser } from 'saxes';
import type { SaxesAttributeNS } from 'saxes';
import { FhirgateError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { clip } from './fault.js';
import { NamespaceScope } from './namespace-scope.js';
import { advance, plainEnd, stopBeforePlain } from './plain-text.js';

/** The shortest plain text worth stopping the parser for, in characters. */
const MIN_PLAIN = 512;

/** An attribute as the parser reports it: its namespace resolved. */
export interface XMLAttribute {
  /** The qualified name (`prefix:local`, or `local`). */
  readonly name: string;
  readonly prefix: string;
  readonly local: string;
  /** The namespace URI, `''` for none. */
  readonly uri: string;
  readonly value: string;
}

/**
 * An element as the parser reports it: namespaces resolved. fhirgate's own shape (saxes's tags fit it),
 * so that no public declaration file names a type of saxes.
 */
export interface XMLTag {
  /** The qualified name (`prefix:local`, or `local`). */
  readonly name: string;
  readonly prefix: string;
  readonly local: string;
  /** The namespace URI, `''` for none. */
  readonly uri: string;
  /** The attributes by qualified name. */
  readonly attributes: Readonly<Record<string, XMLAttribute>>;
  readonly isSelfClosing: boolean;
}

/** The XML declaration (`<?xml version="1.0" encoding="UTF-8"?>`) as written. */
export interface XMLDeclaration {
  readonly version?: string | undefined;
  readonly encoding?: string | undefined;
  readonly standalone?: string | undefined;
}

/** Limits that protect a parser from hostile input. */
export interface XMLLimits {
  /** The deepest element nesting allowed (the root is depth 1). */
  maxDepth: number;
  /** The most elements a document may hold. */
  maxElements: number;
  /** The most attributes one element may carry, namespace declarations included. Default 128. */
  maxAttributes?: number;
  /** The most namespace declarations (`xmlns`, `xmlns:p`) one element may carry. Default 32. */
  maxNamespaceDeclarations?: number;
  /** The longest attribute value, in characters (after references are resolved). Default 65 536. */
  maxAttributeLength?: number;
}

/**
 * The defaults of the optional {@link XMLLimits}: far above what a CDA document or a SOAP envelope
 * carries (a CDA root has about ten attributes, half of them namespace declarations; its longest values
 * are OIDs, codes and display names), far below where one element holds the event loop.
 */
export const ATTRIBUTE_LIMITS = Object.freeze({ maxAttributes: 128, maxNamespaceDeclarations: 32, maxAttributeLength: 65_536 });

/** saxes's namespace state, read by the constant-time `resolve` put in place of its walk. */
interface SaxesNamespaces {
  topNS: Record<string, string>;
  ns: Record<string, string>;
  resolve(prefix: string): string | undefined;
}

/** What a consumer of {@link createSecureParser} reacts to. Each callback is optional. */
export interface XMLEvents {
  /** An element opened; `depth` is 1 for the root. */
  open?(tag: XMLTag, depth: number): void;
  /** An element closed; `depth` is the depth it had when it opened. */
  close?(tag: XMLTag, depth: number): void;
  /** Character data (text or CDATA), entities already resolved. May come in several pieces. */
  text?(text: string): void;
  /** The XML declaration, when there is one. */
  decl?(decl: XMLDeclaration): void;
}

/** A parser fed piece by piece: `write` each piece, then `close` once. Both throw on bad input. */
export interface SecureParser {
  write(text: string): void;
  close(): void;
  /** The index in the input of the next character the parser reads (JavaScript string index). */
  readonly position: number;
}

/**
 * Builds a namespace-aware parser that throws `FhirgateError(code, 'Invalid XML: …')` on any
 * well-formedness error, any DOCTYPE, an undefined entity, or a limit exceeded. Attribute limits are
 * checked as each attribute is read, so an element with a million attributes is refused at the first one
 * over the limit, not after all of them were read.
 */
export function createSecureParser(limits: XMLLimits, code: ErrorCode, events: XMLEvents): SecureParser {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const fail = (reason: string): never => {
    throw new FhirgateError(code, `Invalid XML: ${reason}`);
  };
  const maxAttributes = limits.maxAttributes ?? ATTRIBUTE_LIMITS.maxAttributes;
  const maxNamespaceDeclarations = limits.maxNamespaceDeclarations ?? ATTRIBUTE_LIMITS.maxNamespaceDeclarations;
  const maxAttributeLength = limits.maxAttributeLength ?? ATTRIBUTE_LIMITS.maxAttributeLength;
  const scope = new NamespaceScope();
  // saxes looks a prefix up through every open element; the scope answers at once, from the same bindings
  // (the element's own declarations first, then the open elements', then xml and xmlns).
  const namespaces = parser as unknown as SaxesNamespaces;
  namespaces.resolve = (prefix) => namespaces.topNS[prefix] ?? scope.lookup(prefix) ?? namespaces.ns[prefix];
  let depth = 0;
  let elements = 0;
  /** Attributes of the element being read, and the namespace declarations among them. */
  let attributes = 0;
  const declared: SaxesAttributeNS[] = [];
  /** Characters written to saxes, characters handed on around it, and where saxes's last tag ended. */
  let fed = 0;
  let skipped = 0;
  let tagEnd = -1;
  // No 'error' handler: without one saxes throws, and `guard` turns that into our error. Keeping the
  // handler count at six or fewer matters: with seven, V8 makes the parser object slow and parsing a 1 MB
  // document takes about five times longer. So the XML declaration is read when the root opens, not
  // through an 'xmldecl' handler.
  const guard = (step: () => void): void => {
    try {
      step();
    } catch (err) {
      if (err instanceof FhirgateError) throw err;
      fail(clip(err instanceof Error ? err.message : String(err)));
    }
  };
  parser.on('doctype', () => fail('DOCTYPE is not allowed'));
  parser.on('attribute', (attribute) => {
    attributes += 1;
    if (attributes > maxAttributes) fail(`more than ${maxAttributes} attributes on one element`);
    if (isDeclaration(attribute as SaxesAttributeNS)) {
      declared.push(attribute as SaxesAttributeNS);
      if (declared.length > maxNamespaceDeclarations) fail(`more than ${maxNamespaceDeclarations} namespace declarations on one element`);
    }
    if (attribute.value.length > maxAttributeLength) fail(`an attribute value longer than ${maxAttributeLength} characters`);
  });
  const onDecl = events.decl;
  parser.on('opentag', (tag) => {
    depth += 1;
    elements += 1;
    attributes = 0;
    if (depth > limits.maxDepth) fail(`nesting deeper than ${limits.maxDepth} elements`);
    if (elements > limits.maxElements) fail(`more than ${limits.maxElements} elements`);
    scope.enter();
    if (declared.length > 0) {
      for (const { prefix, local } of declared) scope.declare(prefix === '' ? '' : local, tag.ns[prefix === '' ? '' : local]!);
      declared.length = 0;
    }
    if (depth === 1 && onDecl && parser.xmlDecl.version !== undefined) onDecl(parser.xmlDecl);
    events.open?.(tag, depth);
    tagEnd = parser.position;
  });
  parser.on('closetag', (tag) => {
    events.close?.(tag, depth);
    scope.leave();
    depth -= 1;
    tagEnd = parser.position;
  });
  const onText = events.text;
  if (onText) {
    parser.on('text', onText);
    parser.on('cdata', onText);
  }
  const feed = (text: string): void => {
    guard(() => void parser.write(text));
    fed += text.length;
  };
  /**
   * Right after saxes reported a tag, inside the root, it is in element content with no text pending:
   * plain text there is handed on without it (the text it would report, unchanged, in the same order),
   * and its line and column moved on past it so that later errors name the same place.
   */
  const handOn = (text: string, from: number): number => {
    if (fed !== tagEnd || depth === 0) return from;
    const end = plainEnd(text, from);
    if (end === from) return from;
    const plain = text.slice(from, end);
    if (onText) guard(() => onText(plain));
    Object.assign(parser, advance(parser, plain));
    skipped += plain.length;
    return end;
  };
  return {
    write: (text) => {
      let from = 0;
      while (from < text.length) {
        from = handOn(text, from);
        if (from === text.length) break;
        const stop = stopBeforePlain(text, from, MIN_PLAIN);
        feed(from === 0 && stop === text.length ? text : text.slice(from, stop));
        from = stop;
      }
    },
    close: () => guard(() => void parser.close()),
    get position() {
      return parser.position + skipped;
    },
  };
}

/** `xmlns` or `xmlns:p`, as saxes splits the name. */
function isDeclaration(attribute: SaxesAttributeNS): boolean {
  return attribute.prefix === 'xmlns' || (attribute.prefix === '' && attribute.local === 'xmlns');
}

/** Parses a whole string with {@link createSecureParser}. */
export function parseSecurely(text: string, limits: XMLLimits, code: ErrorCode, events: XMLEvents): void {
  const parser = createSecureParser(limits, code, events);
  parser.write(text);
  parser.close();
}
