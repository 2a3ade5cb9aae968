/**
 * Parsing CDA text into an element tree, with the secure parser's rules.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import type { XmlLimits } from '../secure-parser.js';
import { parseXmlTree } from '../xml-tree.js';
import type { XmlElement } from '../xml-tree.js';
import { HL7_V3_NS } from './values.js';

/**
 * The default limits for CDA documents: depth 256, 500 000 elements.
 *
 * @example
 * ```ts
 * readCda(text, { ...CDA_LIMITS, maxElements: 50_000 });
 * ```
 */
export const CDA_LIMITS: Readonly<XmlLimits> = Object.freeze({ maxDepth: 256, maxElements: 500_000 });

/**
 * Parses a CDA document and checks that its root is `ClinicalDocument` in `urn:hl7-org:v3`. Throws
 * `FhirgateError('ERR_CDA')` otherwise, and for malformed XML, a DOCTYPE or a limit exceeded.
 *
 * @example
 * ```ts
 * parseCda(text).name; // 'ClinicalDocument'
 * ```
 */
export function parseCda(text: string, limits: Partial<XmlLimits> = {}): XmlElement {
  if (typeof text !== 'string') throw new TypeError('the CDA document must be a string');
  const root = parseXmlTree(text, { ...CDA_LIMITS, ...limits }, 'ERR_CDA');
  if (root.name !== 'ClinicalDocument' || root.uri !== HL7_V3_NS) {
    throw new FhirgateError('ERR_CDA', `not a CDA document: the root is {${root.uri}}${root.name}, not {${HL7_V3_NS}}ClinicalDocument`);
  }
  return root;
}
