import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  NoteReaderService,
  cdaToFHIR,
  enrichCDA,
  readCDA,
} from '../../src/soap/index.js';
import type { CDAEnrichment } from '../../src/soap/index.js';
import { patientReference, toFHIRDateTime, systemUri, toIdentifier } from '../../src/soap/cda/fhir-values.js';
import { child, textContent } from '../../src/soap/xml-tree.js';
import { serve } from '../support/serve.js';
import { bodyChild, envelope, fixture, post } from './soap-client.js';

const FIXTURES = ['epic_cda.xml', 'test_cda.xml', 'uclh_cda.xml'];
const SNOMED = '2.16.840.1.113883.6.96';

test('the header of each fixture: patient, document type, author, effective time', () => {
  const epic = readCDA(fixture('epic_cda.xml')).header;
  assert.deepEqual(epic.patient, { ids: [], name: { given: ['John'], family: 'Smith' }, gender: 'M', birthTime: '19810916' });
  assert.deepEqual(epic.documentType, { code: '34133-9', codeSystem: '2.16.840.1.113883.6.1', codeSystemName: 'LOINC', display: 'Summarization of Episode Note' });
  assert.equal(epic.effectiveTime, '20140916152158-0500');
  assert.equal(epic.title, 'CDA for NoteReader (NLP integration)');
  assert.deepEqual(epic.author?.name, { given: ['Matthew'], family: 'Glenz' });
  assert.equal(epic.author?.organization, 'XPJK SA');
  const uclh = readCDA(fixture('uclh_cda.xml')).header;
  assert.deepEqual(uclh.patient.ids, [{ root: '1.2.840.114350.1.13.525.3.7.5.737384.0', extension: 'E8148' }]);
  assert.deepEqual(uclh.patient.name, { given: ['Edwin'], family: 'Mars' });
  const compact = readCDA(fixture('test_cda.xml')).header;
  assert.equal(compact.effectiveTime, '20221129095009+0000');
  assert.deepEqual(compact.patient.ids, []);
});

test('problems, medications, allergies and notes of each fixture', () => {
  const epic = readCDA(fixture('epic_cda.xml'));
  assert.deepEqual(epic.sections.map((s) => s.code?.code), ['48765-2', '10160-0', '11450-4', '51847-2']);
  assert.deepEqual(epic.problems.map((p) => [p.text, p.status, p.onset]), [['CHF', 'active', '20140916']]);
  assert.equal(epic.allergies[0]?.allergen?.display, 'INSULINS');
  assert.equal(epic.allergies[0]?.allergen?.code, 'N0000183505');
  assert.equal(epic.medications[0]?.code?.display, 'TYLENOL 325 mg oral tablet');
  assert.equal(epic.notes.length, 1);
  assert.match(epic.notes[0]!.text, /^Chief Complaint:\nHeadaches times three months\n/);

  const compact = readCDA(fixture('test_cda.xml'));
  assert.deepEqual(compact.problems[0]?.code, { code: '38341003', codeSystem: SNOMED, codeSystemName: 'SNOMED CT' });
  assert.deepEqual(compact.medications[0], {
    id: { root: '1.2.840.114350.1.13.525.3.7.2.798268', extension: '2225761' },
    code: { code: '314076', codeSystem: '2.16.840.1.113883.6.88', display: 'lisinopril 10 MG Oral Tablet' },
    status: 'completed', end: '20221020', dose: { value: 30, unit: 'mg' },
    route: { code: 'C38288', codeSystem: '2.16.840.1.113883.3.26.1.1', codeSystemName: 'NCI Thesaurus', display: 'Oral' },
  });
  const eggs = compact.allergies[0]!;
  assert.equal(eggs.allergen?.display, 'EGGS');
  assert.deepEqual(eggs.reactions.map((r) => r.display), ['Swelling']);
  assert.equal(eggs.severity?.code, 'H');
  assert.deepEqual(compact.notes.map((n) => n.text), ['test']);

  const uclh = readCDA(fixture('uclh_cda.xml'));
  assert.deepEqual(uclh.problems.map((p) => [p.code?.display, p.status]), [
    ['Hypertension', 'active'], ['Gallstone', 'resolved'], ['Community acquired pneumonia', 'active'], ['Hepatic failure', 'active'],
  ]);
  assert.equal(uclh.problems[1]?.abatement, '20220216');
  assert.ok(uclh.allergies.length >= 5);
  assert.ok(uclh.allergies.every((a) => a.allergen?.display));
  assert.equal(uclh.medications[0]?.text, 'Take 30 mg by mouth ONCE only .');
});

test('each fixture converts to valid R4 shapes', () => {
  for (const name of FIXTURES) {
    const doc = readCDA(fixture(name));
    const r = cdaToFHIR(doc);
    assert.equal(r.conditions.length, doc.problems.length, name);
    for (const c of r.conditions) {
      assert.equal(c.resourceType, 'Condition');
      assert.ok(c.subject.display || c.subject.identifier);
      assert.match(c.clinicalStatus?.coding?.[0]?.code ?? '', /^(active|inactive|resolved)$/);
      assert.ok(c.code?.coding || c.code?.text, `${name}: condition has a code or text`);
      if (c.abatementDateTime) assert.notEqual(c.clinicalStatus?.coding?.[0]?.code, 'active');
    }
    for (const m of r.medicationStatements) {
      assert.equal(m.resourceType, 'MedicationStatement');
      assert.match(m.status, /^(active|completed|stopped|on-hold|intended|unknown)$/);
      assert.ok(m.medicationCodeableConcept && m.subject);
    }
    for (const a of r.allergyIntolerances) {
      assert.equal(a.resourceType, 'AllergyIntolerance');
      assert.ok(a.patient && a.clinicalStatus);
      for (const reaction of a.reaction ?? []) assert.ok(reaction.manifestation.length > 0);
    }
    for (const d of r.documentReferences) {
      assert.equal(d.status, 'current');
      const attachment = d.content[0]!.attachment;
      assert.ok(Buffer.from(attachment.data ?? '', 'base64').toString('utf8').length > 0);
      if (d.date) assert.match(d.date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    }
  }
  const compact = cdaToFHIR(readCDA(fixture('test_cda.xml')));
  assert.deepEqual(compact.conditions[0]?.code, { coding: [{ code: '38341003', system: 'http://snomed.info/sct' }] });
  assert.equal(compact.conditions[0]?.onsetDateTime, '2019-05-17');
  assert.deepEqual(compact.allergyIntolerances[0]?.category, ['food']);
  assert.equal(compact.allergyIntolerances[0]?.reaction?.[0]?.severity, 'severe');
  assert.deepEqual(compact.medicationStatements[0]?.dosage?.[0]?.doseAndRate?.[0]?.doseQuantity, { value: 30, unit: 'mg', system: 'http://unitsofmeasure.org', code: 'mg' });
  assert.equal(compact.documentReferences[0]?.date, '2022-11-29T09:50:09+00:00');
  const uclh = readCDA(fixture('uclh_cda.xml'));
  assert.deepEqual(patientReference(uclh.header), {
    type: 'Patient', identifier: { system: 'urn:oid:1.2.840.114350.1.13.525.3.7.5.737384.0', value: 'E8148' }, display: 'Edwin Mars',
  });
});

test('HL7 timestamps, code systems and identifiers map to FHIR forms', () => {
  assert.equal(toFHIRDateTime('20140916152158-0500'), '2014-09-16T15:21:58-05:00');
  assert.equal(toFHIRDateTime('201409161521+0100'), '2014-09-16T15:21:00+01:00');
  assert.equal(toFHIRDateTime('20140916152158'), '2014-09-16');
  assert.equal(toFHIRDateTime('201409'), '2014-09');
  assert.equal(toFHIRDateTime('nonsense'), undefined);
  assert.equal(systemUri('2.16.840.1.113883.6.1'), 'http://loinc.org');
  assert.equal(systemUri('1.2.3'), 'urn:oid:1.2.3');
  assert.deepEqual(toIdentifier({ root: '36820298-6FCB-11ED-8917-000C29CBAF7B' }), { system: 'urn:ietf:rfc:3986', value: 'urn:uuid:36820298-6fcb-11ed-8917-000c29cbaf7b' });
  assert.deepEqual(toIdentifier({ extension: 'x' }), { value: 'x' });
  assert.equal(toIdentifier(undefined), undefined);
});

const ENRICHMENT: CDAEnrichment = {
  problems: [{ code: { code: '59621000', codeSystem: SNOMED, display: 'Essential hypertension <primary>' }, status: 'active', onset: '20240102' }],
  medications: [{ code: { code: '314076', codeSystem: '2.16.840.1.113883.6.88', display: 'lisinopril 10 MG' }, status: 'active', start: '20240102', dose: { value: 10, unit: 'mg' }, text: 'once daily' }],
  allergies: [{
    allergen: { code: '91935009', codeSystem: SNOMED, display: 'Peanut oil' }, status: 'active', onset: '20240102',
    reactions: [{ code: '271807003', codeSystem: SNOMED, display: 'Rash' }], severity: { code: 'M', codeSystem: '2.16.840.1.113883.5.1063', display: 'Moderate' },
  }],
};

test('enriching each fixture adds entries that read back, and keeps the rest byte for byte', () => {
  for (const name of FIXTURES) {
    const text = fixture(name);
    const before = readCDA(text);
    const enriched = enrichCDA(text, ENRICHMENT);
    const after = readCDA(enriched);
    assert.equal(after.problems.length, before.problems.length + 1, name);
    assert.deepEqual(after.problems.at(-1), { code: ENRICHMENT.problems![0]!.code, text: 'Essential hypertension <primary>', status: 'active', onset: '20240102' });
    assert.deepEqual(after.medications.at(-1), { ...ENRICHMENT.medications![0] });
    assert.deepEqual(after.allergies.at(-1), {
      ...ENRICHMENT.allergies![0], category: { code: '420134006', codeSystem: SNOMED, display: 'Propensity to adverse reactions' },
    });
    assert.deepEqual(after.sections.map((s) => s.code?.code), before.sections.map((s) => s.code?.code), 'no section added');
    assert.deepEqual(after.header, before.header);
    const stripped = enriched.replace(/<entry typeCode="DRIV">(?:(?!<entry[ >]).)*?<\/substanceAdministration><\/entry>|<entry typeCode="DRIV">.*?<\/act><\/entry>/gs, '');
    assert.equal(stripped, text, `${name}: only the entries were inserted`);
  }
});

test('enriching a prefixed document writes prefixed entries and creates missing sections', () => {
  const doc = '<v3:ClinicalDocument xmlns:v3="urn:hl7-org:v3"><v3:component><v3:structuredBody><v3:component><v3:section><v3:title>Other</v3:title></v3:section></v3:component></v3:structuredBody></v3:component></v3:ClinicalDocument>';
  const enriched = enrichCDA(doc, { problems: ENRICHMENT.problems, allergies: [{ allergen: { display: 'Dust' } }] });
  assert.doesNotMatch(enriched, /<(?!\/?v3:)/, 'every element has the v3 prefix');
  const read = readCDA(enriched);
  assert.deepEqual(read.sections.map((s) => [s.code?.code, s.title]), [[undefined, 'Other'], ['11450-4', 'Problems'], ['48765-2', 'Allergies']]);
  assert.equal(read.problems[0]?.code?.code, '59621000');
  assert.equal(read.allergies[0]?.allergen?.display, 'Dust');
  assert.equal(enrichCDA(doc, {}), doc);
});

test('enrichCDA and readCDA refuse what is not a usable CDA document', () => {
  assert.throws(() => readCDA('<ClinicalDocument/>'), { code: 'ERR_CDA', message: /not a CDA document/ });
  assert.throws(() => readCDA('<a'), { code: 'ERR_CDA', message: /^Invalid XML/ });
  assert.throws(() => readCDA(42 as never), TypeError);
  assert.throws(() => enrichCDA('<x xmlns="urn:hl7-org:v3"/>', {}), { code: 'ERR_CDA' });
  const bodiless = '<ClinicalDocument xmlns="urn:hl7-org:v3"><title>t</title></ClinicalDocument>';
  assert.throws(() => enrichCDA(bodiless, { problems: ENRICHMENT.problems }), { code: 'ERR_CDA', message: /no structuredBody/ });
  const empty = '<ClinicalDocument xmlns="urn:hl7-org:v3"><component><structuredBody/></component></ClinicalDocument>';
  assert.throws(() => enrichCDA(empty, { problems: ENRICHMENT.problems }), { code: 'ERR_CDA', message: /empty/ });
  assert.throws(() => enrichCDA(bodiless, null as never), TypeError);
  assert.throws(() => enrichCDA(bodiless, { problems: 'x' as never }), TypeError);
  assert.throws(() => enrichCDA(1 as never, {}), TypeError);
});

test('a handler can answer with an enriched document through the service', async (t) => {
  const nr = new NoteReaderService({ dispatcher: { emit: () => {}, register: () => () => {}, drain: async () => {} } });
  nr.method('ProcessDocument', ({ document }) => ({ document: enrichCDA(document, { problems: ENRICHMENT.problems }) }));
  const { baseUrl } = await serve(t, nr);
  const answer = await post(baseUrl, envelope(fixture('epic_cda.xml')));
  const doc = child(child(bodyChild(answer.root), 'ProcessDocumentResult'), 'Document');
  const cda = readCDA(Buffer.from(textContent(doc), 'base64').toString('utf8'));
  assert.deepEqual(cda.problems.map((p) => p.text), ['CHF', 'Essential hypertension <primary>']);
});
