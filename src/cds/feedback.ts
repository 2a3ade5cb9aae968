/**
 * Checks a CDS Hooks feedback body (CDS Hooks 2.0 §"Feedback").
 * @module
 */
import { checker } from './json-checks.js';
import type { CDSFeedback, JSONObject } from './types.js';

const check = checker('ERR_CDS_REQUEST', 400);
/** An ISO 8601 / FHIR instant: date, time and zone. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

function item(value: unknown, field: string): CDSFeedback {
  const f = check.object(value, field);
  const card = check.string(f.card, `${field}.card`);
  const outcome = check.oneOf(f.outcome, `${field}.outcome`, ['accepted', 'overridden']);
  const outcomeTimestamp = check.string(f.outcomeTimestamp, `${field}.outcomeTimestamp`);
  if (!INSTANT.test(outcomeTimestamp) || Number.isNaN(Date.parse(outcomeTimestamp))) {
    check.fail(`${field}.outcomeTimestamp`, 'must be an ISO 8601 date-time with a time zone');
  }
  const result: CDSFeedback = { card, outcome, outcomeTimestamp };
  if (outcome === 'accepted') {
    const accepted = check.array(f.acceptedSuggestions, `${field}.acceptedSuggestions`);
    result.acceptedSuggestions = accepted.map((s, i) => ({
      id: check.string(check.object(s, `${field}.acceptedSuggestions[${i}]`).id, `${field}.acceptedSuggestions[${i}].id`),
    }));
  }
  if (f.overrideReason !== undefined) {
    if (outcome !== 'overridden') check.fail(`${field}.overrideReason`, 'is only allowed when outcome is overridden');
    const reason = check.object(f.overrideReason, `${field}.overrideReason`);
    if (reason.reason !== undefined) check.object(reason.reason, `${field}.overrideReason.reason`);
    check.optionalString(reason.userComment, `${field}.overrideReason.userComment`);
    result.overrideReason = reason as CDSFeedback['overrideReason'] & object;
  }
  return result;
}

/** Checks a feedback body and returns its items. Throws `CDSError('ERR_CDS_REQUEST', ..., 400, field)`. */
export function validateFeedback(body: JSONObject): CDSFeedback[] {
  const list = check.array(body.feedback, 'feedback');
  if (list.length === 0) check.fail('feedback', 'must not be empty');
  return list.map((f, i) => item(f, `feedback[${i}]`));
}
