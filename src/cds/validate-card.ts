/**
 * Checks what a service handler returned (CDS Hooks 2.0 §"CDS Service Response") before it is sent, and
 * adds the `uuid` of cards and suggestions that lack one.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { checker } from './json-checks.js';
import type { CDSResponse, JSONObject } from './types.js';

const check = checker('ERR_CDS_CARD', 500);
/** The spec asks for a summary of fewer than 140 characters. */
const MAX_SUMMARY = 139;

function absoluteUrl(value: unknown, field: string): void {
  if (!URL.canParse(check.string(value, field))) check.fail(field, 'must be an absolute URL');
}

function coding(value: unknown, field: string, displayRequired: boolean): void {
  const c = check.object(value, field);
  for (const name of ['system', 'code'] as const) check.optionalString(c[name], `${field}.${name}`);
  if (displayRequired) check.string(c.display, `${field}.display`);
  else check.optionalString(c.display, `${field}.display`);
}

function optionalList(value: unknown, field: string, each: (item: unknown, field: string) => void): void {
  if (value === undefined) return;
  check.array(value, field).forEach((item, i) => each(item, `${field}[${i}]`));
}

function action(value: unknown, field: string): void {
  const a = check.object(value, field);
  const type = check.oneOf(a.type, `${field}.type`, ['create', 'update', 'delete']);
  check.string(a.description, `${field}.description`);
  if (type === 'delete') {
    const ids: unknown = typeof a.resourceId === 'string' ? [a.resourceId] : a.resourceId;
    if (!Array.isArray(ids) || ids.length === 0) return check.fail(`${field}.resourceId`, 'is required for a delete action');
    ids.forEach((id, i) => check.string(id, `${field}.resourceId[${i}]`));
  } else if (!check.isObject(a.resource) || typeof a.resource.resourceType !== 'string') {
    check.fail(`${field}.resource`, `must be a FHIR resource for a ${type} action`);
  }
}

function suggestion(value: unknown, field: string): JSONObject {
  const s = check.object(value, field);
  check.string(s.label, `${field}.label`);
  const uuid = check.optionalString(s.uuid, `${field}.uuid`);
  if (s.isRecommended !== undefined && typeof s.isRecommended !== 'boolean') check.fail(`${field}.isRecommended`, 'must be a boolean');
  optionalList(s.actions, `${field}.actions`, action);
  return { ...s, uuid: uuid ?? randomUUID() };
}

function link(value: unknown, field: string): void {
  const l = check.object(value, field);
  check.string(l.label, `${field}.label`);
  absoluteUrl(l.url, `${field}.url`);
  const type = check.oneOf(l.type, `${field}.type`, ['absolute', 'smart']);
  if (l.appContext !== undefined && type !== 'smart') check.fail(`${field}.appContext`, 'is only allowed on smart links');
  check.optionalString(l.appContext, `${field}.appContext`);
}

function card(value: unknown, field: string): JSONObject {
  const c = check.object(value, field);
  const uuid = check.optionalString(c.uuid, `${field}.uuid`);
  const summary = check.string(c.summary, `${field}.summary`);
  if ([...summary].length > MAX_SUMMARY) check.fail(`${field}.summary`, `must be shorter than ${MAX_SUMMARY + 1} characters`);
  check.optionalString(c.detail, `${field}.detail`);
  check.oneOf(c.indicator, `${field}.indicator`, ['info', 'warning', 'critical']);
  const source = check.object(c.source, `${field}.source`);
  check.string(source.label, `${field}.source.label`);
  if (source.url !== undefined) absoluteUrl(source.url, `${field}.source.url`);
  if (source.icon !== undefined) absoluteUrl(source.icon, `${field}.source.icon`);
  if (source.topic !== undefined) coding(source.topic, `${field}.source.topic`, false);
  const suggestions = c.suggestions === undefined
    ? undefined
    : check.array(c.suggestions, `${field}.suggestions`).map((s, i) => suggestion(s, `${field}.suggestions[${i}]`));
  if ((suggestions?.length ?? 0) > 0 || c.selectionBehavior !== undefined) {
    check.oneOf(c.selectionBehavior, `${field}.selectionBehavior`, ['at-most-one', 'any']);
  }
  optionalList(c.overrideReasons, `${field}.overrideReasons`, (r, f) => coding(r, f, true));
  optionalList(c.links, `${field}.links`, link);
  const checked: JSONObject = { ...c, uuid: uuid ?? randomUUID() };
  if (suggestions !== undefined) checked.suggestions = suggestions;
  return checked;
}

/**
 * Checks a handler's answer and returns the copy to send (uuids added). Throws
 * `CDSError('ERR_CDS_CARD', 'cards[1].indicator must be one of info, warning, critical', 500, 'cards[1].indicator')`.
 */
export function validateResponse(value: unknown): CDSResponse {
  const response = check.object(value, 'response');
  const cards = check.array(response.cards, 'cards').map((c, i) => card(c, `cards[${i}]`));
  optionalList(response.systemActions, 'systemActions', action);
  return { ...response, cards } as unknown as CDSResponse;
}
