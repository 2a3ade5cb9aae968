/**
 * Reading CDA data types (CD, II, PN, TS) from elements.
 * @module
 */
import { child, children, textContent } from '../xml-tree.js';
import type { XMLElement } from '../xml-tree.js';
import type { CDACode, CDAIdentifier, CDAName } from './types.js';

/**
 * The HL7 v3 namespace CDA elements live in.
 *
 * @example
 * ```ts
 * root.uri === HL7_V3_NS;
 * ```
 */
export const HL7_V3_NS = 'urn:hl7-org:v3';

/**
 * The LOINC codes of the sections fhirgate reads entries from.
 *
 * @example
 * ```ts
 * SECTION_CODES.problems; // '11450-4'
 * ```
 */
export const SECTION_CODES = Object.freeze({ problems: '11450-4', medications: '10160-0', allergies: '48765-2' });

function defined<T extends object>(value: T): T | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== '');
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as T);
}

/**
 * A coded value from `code`, `codeSystem`, `codeSystemName` and `displayName`; `undefined` when none is
 * there. `fallbackDisplay` fills `display` when the element has none.
 *
 * @example
 * ```ts
 * readCode(child(obs, 'value'), 'CHF');
 * ```
 */
export function readCode(el: XMLElement | undefined, fallbackDisplay?: string): CDACode | undefined {
  if (!el) return fallbackDisplay ? { display: fallbackDisplay } : undefined;
  const a = el.attributes;
  return defined<CDACode>({
    code: a.code,
    codeSystem: a.codeSystem,
    codeSystemName: a.codeSystemName,
    display: a.displayName ?? fallbackDisplay,
  });
}

/**
 * An identifier from `root` and `extension`; `undefined` for a null-flavoured one.
 *
 * @example
 * ```ts
 * readId(child(doc, 'id')); // { root: '1.2.840…', extension: '1bd2…' }
 * ```
 */
export function readId(el: XMLElement | undefined): CDAIdentifier | undefined {
  if (!el || el.attributes.nullFlavor !== undefined) return undefined;
  return defined<CDAIdentifier>({ root: el.attributes.root, extension: el.attributes.extension });
}

/**
 * Every identifier among the `id` children of `el`.
 *
 * @example
 * ```ts
 * readIds(patientRole);
 * ```
 */
export function readIds(el: XMLElement | undefined): CDAIdentifier[] {
  return children(el, 'id').flatMap((id) => readId(id) ?? []);
}

/**
 * A person name from a `name` element: `given` parts and `family`.
 *
 * @example
 * ```ts
 * readName(child(patient, 'name')); // { given: ['John'], family: 'Smith' }
 * ```
 */
export function readName(el: XMLElement | undefined): CDAName | undefined {
  if (!el || el.attributes.nullFlavor !== undefined) return undefined;
  const given = children(el, 'given').map((g) => textContent(g).trim()).filter(Boolean);
  const family = textContent(child(el, 'family')).trim() || undefined;
  if (given.length === 0 && family === undefined) {
    const whole = textContent(el).trim();
    return whole ? { given: [], family: whole } : undefined;
  }
  return family === undefined ? { given } : { given, family };
}

/**
 * The `value` attribute of a time element, unless null-flavoured.
 *
 * @example
 * ```ts
 * readTime(child(doc, 'effectiveTime')); // '20140916152158-0500'
 * ```
 */
export function readTime(el: XMLElement | undefined): string | undefined {
  return el?.attributes.value || undefined;
}
