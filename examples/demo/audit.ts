/**
 * The demo's audit trail: every event becomes one `info` log line, `{"msg":"event","event":…,…facts}`,
 * on the same stream and in the same JSON format as the host's own lines. Payloads are flat facts by
 * contract (ids, types, sources, counts); the fields still leave out any name that suggests a credential
 * and clip long values, so a careless emitter cannot leak a secret or a body through them.
 * @module
 */
import type { EventPair } from '../../src/index.js';

const CREDENTIAL_FIELD = /token|secret|password|assertion|authorization|api_?key/i;
const MAX_VALUE_CHARS = 80;

/**
 * The log fields of one event: its name as `event`, then its payload's facts.
 *
 * @example
 * ```ts
 * auditFields(['fhir.patient.read', { resource_type: 'Patient', resource_id: 'a-patient-1', source: 'ehr-a' }]);
 * // { event: 'fhir.patient.read', resource_type: 'Patient', resource_id: 'a-patient-1', source: 'ehr-a' }
 * logger.info('event', auditFields(pair));
 * ```
 */
export function auditFields([eventName, payload]: EventPair): Record<string, unknown> {
  const facts = Object.entries(payload)
    .filter(([key, value]) => value !== undefined && value !== null && key !== 'event' && !CREDENTIAL_FIELD.test(key))
    .map(([key, value]) => {
      if (typeof value === 'number' || typeof value === 'boolean') return [key, value];
      const text = String(value).replace(/\s+/g, ' ');
      return [key, text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text];
    });
  return { event: eventName, ...Object.fromEntries(facts) };
}
