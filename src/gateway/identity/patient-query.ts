/**
 * Checks what `resolvePatient` is asked: `{ identifier: 'system|value' }` with a configured system, or
 * `{ source, id }` with a FHIR id.
 * @module
 */
import { isFHIRId } from '../../fhir/index.js';
import type { IdentitySettings } from '../core/identity-options.js';
import type { PatientQuery } from './types.js';

/** One identifier, split at its first `|`. */
export interface Identifier {
  readonly system: string;
  readonly value: string;
}

/** The query after checking. */
export type CheckedQuery = { readonly kind: 'identifier'; readonly identifier: Identifier } | { readonly kind: 'local'; readonly source: string; readonly id: string };

/** `system|value` as one string, the form of FHIR token search parameters. */
export function identifierText(identifier: Identifier): string {
  return `${identifier.system}|${identifier.value}`;
}

/**
 * Parses `system|value`: a `TypeError` unless the system is one of `settings.systems` and the value is
 * 1 to 256 characters without control characters.
 */
export function parseIdentifier(text: unknown, settings: IdentitySettings, name: string): Identifier {
  if (typeof text !== 'string') throw new TypeError(`${name} must be a string system|value`);
  const bar = text.indexOf('|');
  if (bar < 0) throw new TypeError(`${name} must be system|value (no "|" found)`);
  const system = text.slice(0, bar);
  const value = text.slice(bar + 1);
  if (!settings.systems.includes(system)) throw new TypeError(`${name}: the system is not one of the gateway's identity.systems`);
  if (value === '' || value.length > 256 || /[\u0000-\u001f\u007f]/.test(value)) throw new TypeError(`${name}: the value must be 1 to 256 characters without control characters`);
  return { system, value };
}

/** Checks a {@link PatientQuery}; a `TypeError` names what is wrong. */
export function checkQuery(query: PatientQuery, settings: IdentitySettings): CheckedQuery {
  if (typeof query !== 'object' || query === null) throw new TypeError('resolvePatient: the query must be { identifier } or { source, id }');
  if ('identifier' in query) {
    if ('source' in query || 'id' in query) throw new TypeError('resolvePatient: give { identifier } or { source, id }, not both');
    return { kind: 'identifier', identifier: parseIdentifier(query.identifier, settings, 'resolvePatient: identifier') };
  }
  const { source, id } = query as { source?: unknown; id?: unknown };
  if (typeof source !== 'string' || source === '') throw new TypeError('resolvePatient: source must be a source name');
  if (typeof id !== 'string' || !isFHIRId(id)) throw new TypeError('resolvePatient: id must be a FHIR id ([A-Za-z0-9-.]{1,64})');
  return { kind: 'local', source, id };
}

/** The query as text: `system|value`, or `<source>/Patient/<id>`. */
export function queryText(query: CheckedQuery): string {
  return query.kind === 'identifier' ? identifierText(query.identifier) : `${query.source}/Patient/${query.id}`;
}
