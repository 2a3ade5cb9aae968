/**
 * Writing CDA entries (problem, medication, allergy) as XML, in the shapes `readCDA` reads back.
 * @module
 */
import { escapeXML } from '../escape-xml.js';
import type { CDAAllergyInput, CDACode, CDAIdentifier, CDAMedication, CDAProblem } from './types.js';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const SNOMED = '2.16.840.1.113883.6.96';
const ACT_CODE = '2.16.840.1.113883.5.4';
const STATUS_CODES: Readonly<Record<string, string>> = { active: '55561003', inactive: '73425007', resolved: '413322009' };

type Attrs = Record<string, string | undefined>;

/** Writes elements with the section's prefix, so that they land in `urn:hl7-org:v3` whatever it is. */
export class CDAWriter {
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix === '' ? '' : `${prefix}:`;
  }

  /** An element with attributes (undefined ones left out) and already-written children. */
  el(name: string, attrs: Attrs, ...content: string[]): string {
    let open = `<${this.#prefix}${name}`;
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined) open += ` ${k}="${escapeXML(v)}"`;
    const inner = content.join('');
    return inner === '' ? `${open}/>` : `${open}>${inner}</${this.#prefix}${name}>`;
  }

  /** Text content. */
  text(name: string, value: string | undefined): string {
    return value ? `<${this.#prefix}${name}>${escapeXML(value)}</${this.#prefix}${name}>` : '';
  }

  id(value: CDAIdentifier | undefined): string {
    return value ? this.el('id', { root: value.root, extension: value.extension }) : '';
  }

  code(name: string, code: CDACode | undefined, xsiType?: string, originalText?: string): string {
    const attrs: Attrs = xsiType ? { 'xmlns:xsi': XSI, 'xsi:type': xsiType } : {};
    if (code?.code) Object.assign(attrs, { code: code.code, codeSystem: code.codeSystem, codeSystemName: code.codeSystemName, displayName: code.display });
    else attrs.nullFlavor = 'UNK';
    return this.el(name, attrs, this.text('originalText', originalText));
  }

  period(low: string | undefined, high: string | undefined, xsiType?: string): string {
    if (!low && !high) return '';
    const attrs: Attrs = xsiType ? { 'xmlns:xsi': XSI, 'xsi:type': xsiType } : {};
    return this.el('effectiveTime', attrs, low ? this.el('low', { value: low }) : '', high ? this.el('high', { value: high }) : '');
  }

  observation(code: CDACode, value: string, ...more: string[]): string {
    return this.el('observation', { classCode: 'OBS', moodCode: 'EVN' }, this.code('code', code), this.el('statusCode', { code: 'completed' }), value, ...more);
  }

  statusObservation(status: string | undefined): string {
    if (!status) return '';
    const display = status.charAt(0).toUpperCase() + status.slice(1);
    const known = STATUS_CODES[status];
    const value = this.el('value', { 'xmlns:xsi': XSI, 'xsi:type': 'CE', code: known, codeSystem: known && SNOMED, displayName: display });
    const obs = this.observation({ code: '33999-4', codeSystem: '2.16.840.1.113883.6.1', display: 'Status' }, value);
    return this.el('entryRelationship', { typeCode: 'REFR', inversionInd: 'true' }, obs);
  }

  concern(status: string | undefined, onset: string | undefined, subject: string): string {
    return this.el('entry', { typeCode: 'DRIV' }, this.el('act', { classCode: 'ACT', moodCode: 'EVN' },
      this.el('templateId', { root: '2.16.840.1.113883.10.20.1.27' }),
      this.el('code', { nullFlavor: 'NA' }),
      this.el('statusCode', { code: status === 'resolved' || status === 'inactive' ? 'completed' : 'active' }),
      this.period(onset, undefined),
      this.el('entryRelationship', { typeCode: 'SUBJ', inversionInd: 'false' }, subject)));
  }
}

/** A problem entry: a concern act around a problem observation whose `value` is the problem code. */
export function problemEntry(w: CDAWriter, p: CDAProblem): string {
  const text = p.text ?? p.code?.display;
  const obs = w.el('observation', { classCode: 'OBS', moodCode: 'EVN' },
    w.el('templateId', { root: '2.16.840.1.113883.10.20.1.28' }), w.id(p.id),
    w.code('code', { code: '55607006', codeSystem: SNOMED, display: 'Problem' }),
    w.el('statusCode', { code: 'completed' }), w.period(p.onset, p.abatement),
    w.code('value', p.code, 'CD', text), w.statusObservation(p.status));
  return w.concern(p.status, p.onset, obs);
}

/** A medication entry: a `substanceAdministration` with period, route, dose and the drug code. */
export function medicationEntry(w: CDAWriter, m: CDAMedication): string {
  const product = w.el('manufacturedProduct', { classCode: 'MANU' },
    w.el('templateId', { root: '2.16.840.1.113883.10.20.1.53' }),
    w.el('manufacturedMaterial', {}, w.code('code', m.code, undefined, m.code?.display)));
  const sa = w.el('substanceAdministration', { classCode: 'SBADM', moodCode: 'EVN' },
    w.el('templateId', { root: '2.16.840.1.113883.10.20.1.24' }), w.id(m.id), w.text('text', m.text),
    w.el('statusCode', { code: m.status ?? 'active' }), w.period(m.start, m.end, 'IVL_TS'),
    m.route ? w.code('routeCode', m.route) : '',
    m.dose ? w.el('doseQuantity', { value: String(m.dose.value), unit: m.dose.unit }) : '',
    w.el('consumable', {}, product));
  return w.el('entry', { typeCode: 'DRIV' }, sa);
}

/**
 * An allergy entry: a concern act around an allergy observation with the allergen as participant,
 * reactions (`MFST`) and severity (`SEV`).
 */
export function allergyEntry(w: CDAWriter, a: CDAAllergyInput): string {
  const entity = w.el('participant', { typeCode: 'CSM' }, w.el('participantRole', { classCode: 'MANU' },
    w.el('playingEntity', { classCode: 'MMAT' }, w.code('code', a.allergen), w.text('name', a.allergen?.display))));
  const assertion = { code: 'ASSERTION', codeSystem: ACT_CODE };
  const reactions = (a.reactions ?? []).map((r) => w.el('entryRelationship', { typeCode: 'MFST', inversionInd: 'true' }, w.observation(assertion, w.code('value', r, 'CD'))));
  const severity = a.severity
    ? w.el('entryRelationship', { typeCode: 'SUBJ', inversionInd: 'true' },
      w.observation({ code: 'SEV', codeSystem: ACT_CODE, display: 'Severity' }, w.code('value', a.severity, 'CD')))
    : '';
  const category = a.category ?? { code: '420134006', codeSystem: SNOMED, display: 'Propensity to adverse reactions' };
  const obs = w.el('observation', { classCode: 'OBS', moodCode: 'EVN' },
    w.el('templateId', { root: '2.16.840.1.113883.10.20.1.18' }), w.id(a.id), w.code('code', category),
    w.text('text', a.text), w.el('statusCode', { code: 'completed' }), w.period(a.onset, undefined),
    w.code('value', a.allergen, 'CD'), entity, w.statusObservation(a.status), ...reactions, severity);
  return w.concern(a.status, a.onset, obs);
}
