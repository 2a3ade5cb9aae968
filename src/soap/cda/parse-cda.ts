/**
 * Parsing CDA text into an element tree, with the secure parser's rules.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import { checkObject, onlyKnownKeys } from '../../lib/options.js';
import { XML_LIMIT_KEYS } from '../options.js';
import { ATTRIBUTE_LIMITS } from '../secure-parser.js';
import type { XMLLimits } from '../secure-parser.js';
import { parseXMLTree } from '../xml-tree.js';
import type { XMLElement } from '../xml-tree.js';
import { HL7_V3_NS } from './values.js';

/**
 * The default limits for CDA documents: depth 256, 500 000 elements, and the parser's attribute limits
 * (128 attributes and 32 namespace declarations per element, values up to 65 536 characters).
 */
export const CDA_LIMITS: Readonly<XMLLimits> = Object.freeze({ maxDepth: 256, maxElements: 500_000, ...ATTRIBUTE_LIMITS });

/**
 * Parses a CDA document and checks that its root is `ClinicalDocument` in `urn:hl7-org:v3`. Throws
 * `FhirgateError('ERR_CDA')` otherwise, and for malformed XML, a DOCTYPE or a limit exceeded.
 */
export function parseCDA(text: string, limits: Partial<XMLLimits> = {}): XMLElement {
  if (typeof text !== 'string') throw new TypeError('the CDA document must be a string');
  checkObject(limits, 'options');
  onlyKnownKeys(limits, XML_LIMIT_KEYS, 'options');
  const root = parseXMLTree(text, { ...CDA_LIMITS, ...limits }, 'ERR_CDA');
  if (root.name !== 'ClinicalDocument' || root.uri !== HL7_V3_NS) {
    throw new FhirgateError('ERR_CDA', `not a CDA document: the root is {${root.uri}}${root.name}, not {${HL7_V3_NS}}ClinicalDocument`);
  }
  return root;
}
