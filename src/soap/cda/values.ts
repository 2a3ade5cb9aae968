/**
 * Reading CDA data types (CD, II, PN, TS) from elements.
 * @module
 */
import { child, children, textContent } from '../xml-tree.js';
import type { XMLElement } from '../xml-tree.js';
import type { CDACode, CDAIdentifier, CDAName } from './types.js';

/** The HL7 v3 namespace CDA elements live in. */
export const HL7_V3_NS = 'urn:hl7-org:v3';

/** The LOINC codes of the sections fhirgate reads entries from. */
export const SECTION_CODES = Object.freeze({ problems: '11450-4', medications: '10160-0', allergies: '48765-2' });

function defined<T extends object>(value: T): T | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== '');
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as T);
}

/**
 * A coded value from `code`, `codeSystem`, `codeSystemName` and `displayName`; `undefined` when none is
 * there. `fallbackDisplay` fills `display` when the element has none.
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

/** An identifier from `root` and `extension`; `undefined` for a null-flavoured one. */
export function readId(el: XMLElement | undefined): CDAIdentifier | undefined {
  if (!el || el.attributes.nullFlavor !== undefined) return undefined;
  return defined<CDAIdentifier>({ root: el.attributes.root, extension: el.attributes.extension });
}

/** Every identifier among the `id` children of `el`. */
export function readIds(el: XMLElement | undefined): CDAIdentifier[] {
  return children(el, 'id').flatMap((id) => readId(id) ?? []);
}

/** A person name from a `name` element: `given` parts and `family`. */
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

/** The `value` attribute of a time element, unless null-flavoured. */
export function readTime(el: XMLElement | undefined): string | undefined {
  return el?.attributes.value || undefined;
}
