/**
 * Adding entries to the sections of a CDA document, text in, text out.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import { checkObject, onlyKnownKeys } from '../../lib/options.js';
import { XML_LIMIT_KEYS } from '../options.js';
import { createSecureParser } from '../secure-parser.js';
import type { XMLLimits } from '../secure-parser.js';
import { CDA_LIMITS } from './parse-cda.js';
import type { CDAAllergyInput, CDAMedication, CDAProblem } from './types.js';
import { HL7_V3_NS, SECTION_CODES } from './values.js';
import { CDAWriter, allergyEntry, medicationEntry, problemEntry } from './write-entries.js';

/** What to add to a CDA document. */
export interface CDAEnrichment {
  /** Added to the problem list section (LOINC 11450-4). */
  problems?: readonly CDAProblem[];
  /** Added to the medications section (LOINC 10160-0). */
  medications?: readonly CDAMedication[];
  /** Added to the allergies section (LOINC 48765-2). */
  allergies?: readonly CDAAllergyInput[];
}

type Kind = keyof typeof SECTION_CODES;

const KINDS: readonly Kind[] = ['problems', 'medications', 'allergies'];
const TITLES: Readonly<Record<Kind, string>> = { problems: 'Problems', medications: 'Medications', allergies: 'Allergies' };
const WRITERS = { problems: problemEntry, medications: medicationEntry, allergies: allergyEntry } as const;

interface Place {
  /** Where the section's (or the structured body's) close tag starts. */
  offset: number;
  prefix: string;
}

/** Finds, in one pass, where each kind's section ends and where the structured body ends. */
function findPlaces(text: string, limits: XMLLimits): { sections: Partial<Record<Kind, Place>>; body: Place | undefined } {
  const sections: Partial<Record<Kind, Place>> = {};
  let body: Place | undefined;
  const open: { depth: number; kind: Kind | undefined }[] = [];
  const parser = createSecureParser(limits, 'ERR_CDA', {
    open: (tag, depth) => {
      if (depth === 1 && (tag.uri !== HL7_V3_NS || tag.local !== 'ClinicalDocument')) {
        throw new FhirgateError('ERR_CDA', `not a CDA document: the root is {${tag.uri}}${tag.local}`);
      }
      if (tag.uri !== HL7_V3_NS) return;
      if (tag.local === 'section') open.push({ depth, kind: undefined });
      const top = open.at(-1);
      if (tag.local === 'code' && top?.depth === depth - 1 && top.kind === undefined) {
        top.kind = KINDS.find((k) => SECTION_CODES[k] === tag.attributes.code?.value);
      }
    },
    close: (tag, depth) => {
      if (tag.uri !== HL7_V3_NS || (tag.local !== 'section' && tag.local !== 'structuredBody')) return;
      if (tag.isSelfClosing) throw new FhirgateError('ERR_CDA', `cannot add entries to an empty <${tag.name}/>`);
      const place = { offset: text.lastIndexOf('<', parser.position - 1), prefix: tag.prefix };
      if (tag.local === 'structuredBody') body ??= place;
      else if (open.at(-1)?.depth === depth) {
        const { kind } = open.pop()!;
        if (kind && !sections[kind]) sections[kind] = place;
      }
    },
  });
  parser.write(text);
  parser.close();
  return { sections, body };
}

/**
 * Adds entries to a CDA document's problem list, medications and allergies sections (found by their
 * LOINC codes) and returns the new document text; everything else is kept byte for byte. A section
 * that is missing is created at the end of the structured body. The entries are written with the
 * section's own prefix, so they are in `urn:hl7-org:v3` whatever prefixes the document uses, and
 * {@link readCDA} reads them back. Throws `ERR_CDA` for malformed XML, a DOCTYPE, a root other than
 * `ClinicalDocument`, or a document without a structured body when a section must be created.
 *
 * @example
 * ```ts
 * nr.method('ProcessDocument', (request) => {
 *   const enriched = enrichCDA(request.document, {
 *     problems: [{ code: { code: '38341003', codeSystem: '2.16.840.1.113883.6.96', display: 'Hypertension' }, status: 'active' }],
 *   });
 *   return { document: enriched };
 * });
 * ```
 */
export function enrichCDA(text: string, enrichment: CDAEnrichment, limits: Partial<XMLLimits> = {}): string {
  if (typeof text !== 'string') throw new TypeError('the CDA document must be a string');
  if (typeof enrichment !== 'object' || enrichment === null) throw new TypeError('enrichment must be an object');
  onlyKnownKeys(enrichment, KINDS, 'enrichment');
  checkObject(limits, 'limits');
  onlyKnownKeys(limits, XML_LIMIT_KEYS, 'limits');
  const { sections, body } = findPlaces(text, { ...CDA_LIMITS, ...limits });
  const inserts: { offset: number; xml: string }[] = [];
  for (const kind of KINDS) {
    const items = enrichment[kind] ?? [];
    if (!Array.isArray(items)) throw new TypeError(`enrichment.${kind} must be an array`);
    if (items.length === 0) continue;
    const place = sections[kind] ?? body;
    if (!place) throw new FhirgateError('ERR_CDA', 'the document has no structuredBody to add a section to');
    const w = new CDAWriter(place.prefix);
    const entries = items.map((item) => (WRITERS[kind] as (w: CDAWriter, item: unknown) => string)(w, item)).join('');
    const xml = sections[kind]
      ? entries
      : w.el('component', {}, w.el('section', {},
        w.el('code', { code: SECTION_CODES[kind], codeSystem: '2.16.840.1.113883.6.1', codeSystemName: 'LOINC' }),
        w.text('title', TITLES[kind]), entries));
    inserts.push({ offset: place.offset, xml });
  }
  inserts.sort((a, b) => a.offset - b.offset);
  let out = '';
  let from = 0;
  for (const { offset, xml } of inserts) {
    out += text.slice(from, offset) + xml;
    from = offset;
  }
  return out + text.slice(from);
}
