/**
 * A NoteReader service (Epic NoteReader style SOAP 1.1): the EHR posts a `ProcessDocument` envelope
 * with a base64 CDA document; the handler reads the CDA, finds problems mentioned in the note text,
 * adds them to the problem list, and answers the enriched document. The example then acts as the EHR
 * and makes one SOAP call. (The WSDL is at `GET /notereader/?wsdl`.)
 *
 * Needs no FHIR server. Run it: `node --import tsx examples/notereader.ts`
 * @module
 */
import type { AddressInfo } from 'node:net';
import { createJSONLogger, createServiceAPI } from '../src/index.js';
import { enrichCDA, NoteReaderService, readCDA } from '../src/soap/index.js';
import type { CDAProblem } from '../src/soap/index.js';

const SNOMED = '2.16.840.1.113883.6.96';

/** The problems this toy "NLP" recognises in note text: a word and the SNOMED CT concept it means. */
const KNOWN_PROBLEMS: readonly { word: RegExp; code: string; display: string }[] = [
  { word: /\basthma\b/i, code: '195967001', display: 'Asthma' },
  { word: /\bhypertension\b/i, code: '38341003', display: 'Hypertensive disorder' },
  { word: /\bdiabetes\b/i, code: '44054006', display: 'Diabetes mellitus type 2' },
];

const nr = new NoteReaderService();

// The handler gets the decoded document text. What it returns is sent back base64-encoded in the
// answer's Document element; what it throws becomes a soap:Server fault (details go to the log only).
nr.method('ProcessDocument', ({ document }) => {
  const cda = readCDA(document); // refuses DOCTYPEs and entity declarations
  const noteText = cda.notes.map((section) => section.text).join('\n');
  const listed = new Set(cda.problems.map((p) => p.code?.code));
  const found: CDAProblem[] = KNOWN_PROBLEMS
    .filter((p) => p.word.test(noteText) && !listed.has(p.code))
    .map((p) => ({ code: { code: p.code, codeSystem: SNOMED, display: p.display }, text: p.display, status: 'active' }));
  return { document: enrichCDA(document, { problems: found }), error: null };
});

await using app = createServiceAPI({ title: 'NoteReader example', logger: createJSONLogger({ level: 'warn' }) });
app.registerService(nr, { path: '/notereader' });
const server = await app.listen(0);
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notereader/`;

// The EHR's side: a ProcessDocument envelope with the CDA as base64.
const envelope = `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:epic-com:Common.2013.Services">
  <soapenv:Body>
    <urn:ProcessDocument>
      <urn:SessionID>session-1</urn:SessionID>
      <urn:WorkType>2</urn:WorkType>
      <urn:OrganizationID>Example Hospital</urn:OrganizationID>
      <urn:Document>${Buffer.from(sampleCda(), 'utf8').toString('base64')}</urn:Document>
    </urn:ProcessDocument>
  </soapenv:Body>
</soapenv:Envelope>`;
const res = await fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ProcessDocument' },
  body: envelope,
});
const answer = await res.text();
console.log(`POST ${url} (SOAPAction ProcessDocument) -> ${res.status}`);

// The answer's Document is base64 too; read the enriched CDA back.
const base64 = /<(?:\w+:)?Document>([^<]*)</.exec(answer)?.[1];
if (base64 === undefined) throw new Error(`no Document in the answer: ${answer.slice(0, 300)}`);
const enriched = readCDA(Buffer.from(base64, 'base64').toString('utf8'));
console.log(`problem list of ${enriched.header.patient.name?.family}: ${enriched.problems.map((p) => p.code?.display ?? p.text).join(', ')}`);

/** A small CDA R2 document: a patient, a progress note that mentions two problems, an empty problem list. */
function sampleCda(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<ClinicalDocument xmlns="urn:hl7-org:v3">
  <id root="2.16.840.1.113883.19.5" extension="doc-1"/>
  <code code="11506-3" codeSystem="2.16.840.1.113883.6.1" displayName="Progress note"/>
  <title>Progress note</title>
  <effectiveTime value="20260115093000+0000"/>
  <recordTarget><patientRole>
    <id root="2.16.840.1.113883.19.5" extension="MRN-0001"/>
    <patient><name><given>Ada</given><family>Example</family></name>
      <administrativeGenderCode code="F"/><birthTime value="19900401"/></patient>
  </patientRole></recordTarget>
  <component><structuredBody>
    <component><section>
      <code code="11450-4" codeSystem="2.16.840.1.113883.6.1" displayName="Problem list"/>
      <title>Problems</title><text>No problems recorded.</text>
    </section></component>
    <component><section>
      <code code="10164-2" codeSystem="2.16.840.1.113883.6.1" displayName="History of present illness"/>
      <title>History of present illness</title>
      <text>Wheezing at night for two weeks; known asthma since childhood. Blood pressure 150/95, consistent with hypertension.</text>
    </section></component>
  </structuredBody></component>
</ClinicalDocument>`;
}
