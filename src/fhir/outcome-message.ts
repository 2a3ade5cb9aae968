/**
 * Reading a person-readable message out of an OperationOutcome a server sent.
 * @module
 */

/** The longest message {@link outcomeMessage} returns, in characters (longer ones end in `…`). */
export const MAX_OUTCOME_MESSAGE_LENGTH = 500;

type Loose = Record<string, unknown>;
const isLoose = (value: unknown): value is Loose => typeof value === 'object' && value !== null;
const text = (value: unknown): string | undefined => {
  if (typeof value !== 'string') return undefined;
  // Control characters and runs of white space become one space, so the text fits in one log line.
  const flat = value.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat === '' ? undefined : flat;
};

function issueText(issue: unknown): string | undefined {
  if (!isLoose(issue)) return undefined;
  const details = isLoose(issue.details) ? issue.details : {};
  const coding = Array.isArray(details.coding) ? details.coding.find((c) => isLoose(c) && text(c.display)) : undefined;
  return text(issue.diagnostics) ?? text(details.text) ?? (isLoose(coding) ? text(coding.display) : undefined);
}

/**
 * The messages of an OperationOutcome that a server sent, as one line: each issue's `diagnostics`, else
 * its `details.text`, else its first `details.coding[].display`, without duplicates, joined with `; `,
 * with control characters flattened and cut to {@link MAX_OUTCOME_MESSAGE_LENGTH} characters. Returns
 * `undefined` for anything else (not an OperationOutcome, malformed, or no text). Never throws.
 */
export function outcomeMessage(outcome: unknown): string | undefined {
  if (!isLoose(outcome) || outcome.resourceType !== 'OperationOutcome' || !Array.isArray(outcome.issue)) {
    return undefined;
  }
  const texts = [...new Set(outcome.issue.map(issueText).filter((t) => t !== undefined))];
  if (texts.length === 0) return undefined;
  const message = texts.join('; ');
  return message.length <= MAX_OUTCOME_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_OUTCOME_MESSAGE_LENGTH - 1)}…`;
}
