/**
 * The demo's NoteReader service (Epic NoteReader style SOAP 1.1 `ProcessDocument`): it reads the CDA
 * document, finds problems the note text mentions that the problem list lacks (a word list standing in
 * for real NLP), adds them as coded problem entries and answers the enriched document.
 * @module
 */
import { enrichCDA, NoteReaderService, readCDA, type CDAProblem } from '../../src/soap/index.js';

const SNOMED = '2.16.840.1.113883.6.96';

/** The problems the demo recognises in note text: a pattern and the SNOMED CT concept it stands for. */
const VOCABULARY: readonly { words: RegExp; code: string; display: string }[] = [
  { words: /\bhypertension\b|\bhigh blood pressure\b/i, code: '38341003', display: 'Hypertensive disorder' },
  { words: /\bdiabetes\b/i, code: '44054006', display: 'Diabetes mellitus type 2' },
  { words: /\basthma\b/i, code: '195967001', display: 'Asthma' },
  { words: /\bhyperlipidemia\b|\bhigh cholesterol\b/i, code: '55822004', display: 'Hyperlipidemia' },
];

/**
 * The problems that `noteText` mentions and `listed` (codes already on the problem list) lacks.
 *
 * @example
 * ```ts
 * problemsIn('Known asthma.', new Set()); // [{ code: { code: '195967001', ... }, text: 'Asthma', status: 'active' }]
 * ```
 */
export function problemsIn(noteText: string, listed: ReadonlySet<string | undefined>): CDAProblem[] {
  return VOCABULARY
    .filter((p) => p.words.test(noteText) && !listed.has(p.code))
    .map((p) => ({ code: { code: p.code, codeSystem: SNOMED, display: p.display }, text: p.display, status: 'active' }));
}

/**
 * A NoteReader service with the demo's `ProcessDocument` handler.
 *
 * @example
 * ```ts
 * app.registerService(createNoteReaderService(), { path: '/notereader' });
 * ```
 */
export function createNoteReaderService(): NoteReaderService {
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', ({ document }) => {
    const cda = readCDA(document);
    const found = problemsIn(cda.notes.map((n) => n.text).join('\n'), new Set(cda.problems.map((p) => p.code?.code)));
    return { document: enrichCDA(document, { problems: found }), error: null };
  });
  return nr;
}

/**
 * A small CDA R2 progress note for a patient: its note mentions asthma and hypertension, its problem
 * list is empty. No apostrophes, so it pastes inside a single-quoted shell word.
 *
 * @example
 * ```ts
 * const cda = sampleCda({ mrn: 'MRN-A-0001', given: 'Peter', family: 'Chalmers' });
 * ```
 */
export function sampleCda(patient: { mrn: string; given: string; family: string }): string {
  return `<ClinicalDocument xmlns="urn:hl7-org:v3"><id root="2.16.840.1.113883.19.5" extension="demo-note-1"/>`
    + `<code code="11506-3" codeSystem="2.16.840.1.113883.6.1" displayName="Progress note"/><title>Progress note</title>`
    + `<effectiveTime value="20260115093000+0000"/><recordTarget><patientRole>`
    + `<id root="2.16.840.1.113883.19.5" extension="${patient.mrn}"/>`
    + `<patient><name><given>${patient.given}</given><family>${patient.family}</family></name></patient>`
    + `</patientRole></recordTarget><component><structuredBody>`
    + `<component><section><code code="11450-4" codeSystem="2.16.840.1.113883.6.1"/><title>Problems</title><text>None recorded.</text></section></component>`
    + `<component><section><code code="10164-2" codeSystem="2.16.840.1.113883.6.1"/><title>History of present illness</title>`
    + `<text>Wheezing at night; known asthma. Blood pressure 150/95, consistent with hypertension.</text></section></component>`
    + `</structuredBody></component></ClinicalDocument>`;
}

/**
 * A `ProcessDocument` SOAP 1.1 envelope carrying `cda` base64-encoded.
 *
 * @example
 * ```ts
 * await fetch(url, { method: 'POST', headers: { 'content-type': 'text/xml', soapaction: 'ProcessDocument' }, body: processDocumentEnvelope(cda) });
 * ```
 */
export function processDocumentEnvelope(cda: string): string {
  return `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:epic-com:Common.2013.Services">`
    + `<soapenv:Body><urn:ProcessDocument><urn:SessionID>demo-session</urn:SessionID><urn:WorkType>2</urn:WorkType>`
    + `<urn:OrganizationID>Demo Hospital</urn:OrganizationID><urn:Document>${Buffer.from(cda, 'utf8').toString('base64')}</urn:Document>`
    + `</urn:ProcessDocument></soapenv:Body></soapenv:Envelope>`;
}
