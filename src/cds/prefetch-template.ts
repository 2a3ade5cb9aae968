/**
 * Prefetch templates (CDS Hooks 2.0 §"Prefetch tokens"): checked once at registration, rendered per call
 * from the request's context.
 * @module
 */
import { CDSError } from './cds-error.js';
import { primitiveContextFields } from './hooks-context.js';
import type { JSONObject } from './types.js';

const TOKEN = /\{\{\s*([^{}]*?)\s*\}\}/g;
const CONTEXT_TOKEN = /^context\.([A-Za-z_][A-Za-z0-9_]*)$/;
/** `{{userPractitionerId}}` and friends: the id part of `context.userId` when it has that type. */
const USER_TOKENS: Readonly<Record<string, string>> = Object.freeze({
  userPractitionerId: 'Practitioner',
  userPractitionerRoleId: 'PractitionerRole',
  userPatientId: 'Patient',
  userRelatedPersonId: 'RelatedPerson',
});
/** A relative FHIR read or search: `Type`, `Type/...` or `Type?...`, no fragment, no blanks. */
const RELATIVE_QUERY = /^[A-Z][A-Za-z]+(?:[/?][^\s#]*)?$/;
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|\?|$)/;

/**
 * Checks a service's prefetch templates. Throws a `TypeError` naming `prefetch.<key>` when a template is
 * not a relative FHIR query or uses a token the hook cannot fill.
 */
export function checkPrefetchTemplates(hook: string, prefetch: Readonly<Record<string, unknown>>): void {
  const fields = primitiveContextFields(hook);
  for (const [key, template] of Object.entries(prefetch)) {
    const option = `prefetch.${key}`;
    if (typeof template !== 'string') throw new TypeError(`${option} must be a string`);
    for (const [, token = ''] of template.matchAll(TOKEN)) {
      const field = CONTEXT_TOKEN.exec(token)?.[1];
      if (field === undefined && !Object.hasOwn(USER_TOKENS, token)) {
        throw new TypeError(`${option}: unknown prefetch token {{${token}}}`);
      }
      if (field !== undefined && fields !== undefined && !fields.includes(field)) {
        throw new TypeError(`${option}: the ${hook} hook has no primitive context field "${field}" (known: ${fields.join(', ')})`);
      }
    }
    const bare = template.replace(TOKEN, 'x');
    if (bare.includes('{') || bare.includes('}') || !RELATIVE_QUERY.test(bare) || DOT_SEGMENT.test(bare)) {
      throw new TypeError(`${option} must be a relative FHIR read or search such as "Patient/{{context.patientId}}"`);
    }
  }
}

function tokenValue(token: string, context: JSONObject): string | undefined {
  const field = CONTEXT_TOKEN.exec(token)?.[1];
  if (field !== undefined) {
    const value = context[field];
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  }
  const userId = context.userId;
  const type = USER_TOKENS[token];
  if (typeof userId !== 'string' || type === undefined) return undefined;
  const slash = userId.indexOf('/');
  return userId.slice(0, slash) === type ? userId.slice(slash + 1) : undefined;
}

/**
 * Fills a checked template from a request context, URL-encoding each value. `null` when a token has no
 * value in this context (an absent optional field, a user of another type): the data does not exist.
 * Throws `CDSError('ERR_CDS_REQUEST', …, 400)` for a value that is not well-formed text, or a `.` or `..`
 * in the path (a dot segment, which would move the URL out of its resource type).
 */
export function renderTemplate(template: string, context: JSONObject): string | null {
  let missing = false;
  const query = template.indexOf('?');
  const rendered = template.replace(TOKEN, (_, token: string, offset: number) => {
    const value = tokenValue(token, context);
    if (value === undefined) missing = true;
    const field = `context.${CONTEXT_TOKEN.exec(token)?.[1] ?? 'userId'}`;
    // `.` and `..` (even percent-encoded) are dot segments: `Patient/..` would resolve to the server's base.
    if ((value === '.' || value === '..') && (query === -1 || offset < query)) throw new CDSError('ERR_CDS_REQUEST', `${field} cannot be used in a prefetch URL`, 400, field);
    try {
      return encodeURIComponent(value ?? '');
    } catch {
      // A lone UTF-16 surrogate (sent as a `\ud800` JSON escape) has no URL encoding: the client's fault.
      throw new CDSError('ERR_CDS_REQUEST', `${field} is not well-formed text`, 400, field);
    }
  });
  return missing ? null : rendered;
}

/** True when a rendered template is a read (no query part), for which a 404 means "no data". */
export function isReadQuery(query: string): boolean {
  return !query.includes('?');
}
