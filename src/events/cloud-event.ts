/**
 * CloudEvents 1.0 envelopes of fhirgate events (JSON event format), and the `ce-` headers of the HTTP
 * binding's binary content mode.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { EventPayload } from './types.js';

/**
 * A CloudEvents 1.0 event in the JSON format: the required attributes, `time`, and the payload as `data`.
 *
 * @example
 * ```ts
 * const event = JSON.parse('{"type":"fhir.patient.read"}') as CloudEvent; // the body a sink received
 * if (event.type === 'fhir.patient.read') audit(event.id, event.data.resource_id);
 * ```
 */
export interface CloudEvent {
  readonly specversion: '1.0';
  /** A UUID, unique per event (a consumer de-duplicates on `source` + `id`). */
  readonly id: string;
  /** The `source` the user configured (a URI-reference naming this application). */
  readonly source: string;
  /** The fhirgate event name (`fhir.patient.read`). */
  readonly type: string;
  /** When the event was emitted (RFC 3339, UTC). */
  readonly time: string;
  readonly datacontenttype: 'application/json';
  /** The event's flat payload (`resource_type`, `resource_id`, `source`, ...): never a token or secret. */
  readonly data: EventPayload;
}

/** The CloudEvent of one emitted event. */
export function cloudEvent(type: string, data: EventPayload, source: string): CloudEvent {
  return { specversion: '1.0', id: randomUUID(), source, type, time: new Date().toISOString(), datacontenttype: 'application/json', data };
}

/**
 * Percent-encodes a header value as the HTTP binding asks (§3.1.3.2): space, `"`, `%` and every
 * character outside U+0021–U+007E, as upper-case `%XY` of its UTF-8 bytes.
 */
export function percentEncodeHeader(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0x21 && code <= 0x7e && char !== '"' && char !== '%') out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The headers of one event in binary content mode: `ce-specversion`, `ce-id`, `ce-source`, `ce-type`,
 * `ce-time`, and `content-type` from `datacontenttype` (no `ce-datacontenttype`, §3.1.1).
 */
export function binaryHeaders(event: CloudEvent): Record<string, string> {
  return {
    'content-type': event.datacontenttype,
    'ce-specversion': event.specversion,
    'ce-id': percentEncodeHeader(event.id),
    'ce-source': percentEncodeHeader(event.source),
    'ce-type': percentEncodeHeader(event.type),
    'ce-time': event.time,
  };
}
