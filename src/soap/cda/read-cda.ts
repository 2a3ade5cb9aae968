/**
 * Reading a CDA R2 document into plain objects.
 * @module
 */
import type { XMLLimits } from '../secure-parser.js';
import { child, children, textContent } from '../xml-tree.js';
import type { XMLElement } from '../xml-tree.js';
import { readAllergies, readMedications, readProblems } from './entries.js';
import { indexNarrativeIds, narrativeText } from './narrative.js';
import type { CDAAuthor, CDADocument, CDAHeader, CDASection } from './types.js';
import { SECTION_CODES, readCode, readId, readIds, readName, readTime } from './values.js';
import { parseCDA } from './parse-cda.js';

/** Limits for reading CDA documents. */
export type ReadCDAOptions = Partial<XMLLimits>;

function readAuthor(root: XMLElement): CDAAuthor | undefined {
  const authors = children(root, 'author');
  const author = authors.find((a) => child(a, 'assignedAuthor', 'assignedPerson')) ?? authors[0];
  if (!author) return undefined;
  const assigned = child(author, 'assignedAuthor');
  const result: CDAAuthor = { ids: readIds(assigned) };
  const name = readName(child(assigned, 'assignedPerson', 'name'));
  const organization = textContent(child(assigned, 'representedOrganization', 'name')).trim();
  const time = readTime(child(author, 'time'));
  if (name) result.name = name;
  if (organization) result.organization = organization;
  if (time) result.time = time;
  return result;
}

function readHeader(root: XMLElement): CDAHeader {
  const role = child(root, 'recordTarget', 'patientRole');
  const patientEl = child(role, 'patient');
  const header: CDAHeader = { patient: { ids: readIds(role) } };
  const name = readName(child(patientEl, 'name'));
  const gender = child(patientEl, 'administrativeGenderCode')?.attributes.code;
  const birthTime = readTime(child(patientEl, 'birthTime'));
  if (name) header.patient.name = name;
  if (gender) header.patient.gender = gender;
  if (birthTime) header.patient.birthTime = birthTime;
  const id = readId(child(root, 'id'));
  const title = textContent(child(root, 'title')).trim();
  const documentType = readCode(child(root, 'code'));
  const effectiveTime = readTime(child(root, 'effectiveTime'));
  const author = readAuthor(root);
  if (id) header.id = id;
  if (title) header.title = title;
  if (documentType) header.documentType = documentType;
  if (effectiveTime) header.effectiveTime = effectiveTime;
  if (author) header.author = author;
  return header;
}

/** The `section` elements of the structured body, nested ones included, in document order. */
export function bodySections(root: XMLElement): XMLElement[] {
  const found: XMLElement[] = [];
  const walk = (parent: XMLElement | undefined): void => {
    for (const component of children(parent, 'component')) {
      for (const section of children(component, 'section')) {
        found.push(section);
        walk(section);
      }
    }
  };
  walk(child(root, 'component', 'structuredBody'));
  return found;
}

/**
 * Reads a CDA R2 document: the header (patient ids, name, gender and birth time; document type code;
 * author; effective time), every section with its narrative as plain text, the problems, medications
 * and allergies of the sections with LOINC codes 11450-4, 10160-0 and 48765-2, and the other
 * sections with text as notes. Refuses DOCTYPEs and entity declarations; throws `ERR_CDA` for
 * malformed XML or a root other than `ClinicalDocument` in `urn:hl7-org:v3`.
 *
 * @example
 * ```ts
 * nr.method('ProcessDocument', (request) => {
 *   const cda = readCDA(request.document);
 *   console.log(cda.header.patient.name, cda.problems[0]?.text); // { given: ['John'], family: 'Smith' } 'CHF'
 *   return { document: request.document };
 * });
 * ```
 */
export function readCDA(text: string, options: ReadCDAOptions = {}): CDADocument {
  const root = parseCDA(text, options);
  const ids = indexNarrativeIds(root);
  const doc: CDADocument = { header: readHeader(root), sections: [], problems: [], medications: [], allergies: [], notes: [] };
  for (const el of bodySections(root)) {
    const code = readCode(child(el, 'code'));
    const title = textContent(child(el, 'title')).trim();
    const section: CDASection = { text: narrativeText(child(el, 'text')) };
    if (code) section.code = code;
    if (title) section.title = title;
    doc.sections.push(section);
    if (code?.code === SECTION_CODES.problems) doc.problems.push(...readProblems(el, ids));
    else if (code?.code === SECTION_CODES.medications) doc.medications.push(...readMedications(el, ids));
    else if (code?.code === SECTION_CODES.allergies) doc.allergies.push(...readAllergies(el, ids));
    else if (section.text !== '') doc.notes.push(section);
  }
  return doc;
}
