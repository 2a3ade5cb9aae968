/**
 * The demo's audit trail: one readable line per event. Payloads are flat facts by contract (ids, types,
 * sources, counts); the line still leaves out any field whose name suggests a credential and clips long
 * values, so a careless emitter cannot leak a secret or a body through it.
 * @module
 */
import type { EventPair } from '../../src/index.js';

const CREDENTIAL_FIELD = /token|secret|password|assertion|authorization|api_?key/i;
const MAX_VALUE_CHARS = 80;

/**
 * `time event key=value …` for one event.
 *
 * @example
 * ```ts
 * auditLine(['fhir.patient.read', { resource_type: 'Patient', resource_id: 'a-patient-1', source: 'ehr-a' }], new Date(0));
 * // 'audit 1970-01-01T00:00:00.000Z fhir.patient.read resource_type=Patient resource_id=a-patient-1 source=ehr-a'
 * ```
 */
export function auditLine([eventName, payload]: EventPair, at: Date = new Date()): string {
  const facts = Object.entries(payload)
    .filter(([key, value]) => value !== undefined && value !== null && !CREDENTIAL_FIELD.test(key))
    .map(([key, value]) => {
      const text = String(value).replace(/\s+/g, ' ');
      return `${key}=${text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text}`;
    });
  return ['audit', at.toISOString(), eventName, ...facts].join(' ');
}
