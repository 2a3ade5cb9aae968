/**
 * The pre-read before a compartment-bound update or delete, and what it proves. The write goes only
 * when the source's answer proves the target is the caller's to write (200 with that very resource,
 * every patient reference of it the caller's), or, for an update (a create-by-PUT) whose new content was
 * checked already, that nothing is there (404). Everything else refuses: a deleted id (410: its past
 * versions may be another patient's, and the facade does not read history to tell), any other status
 * (401, 403, 429, 5xx), a body that is not that resource. Fail closed: an answer that proves nothing
 * is never taken as "go".
 * @module
 */
import type { FHIRExchangeResponse } from '../gateway/index.js';
import { inCompartment, writableInCompartment } from './compartment.js';
import type { Interaction } from './interaction.js';

/** Why the write may not go (status, reason for the audit, words for the caller), or `undefined`: it may. */
export type TargetRefusal = { readonly status: 403 | 404 | 502; readonly reason: string; readonly shown: string } | undefined;

/** What the pre-read `res` of `interaction`'s target proves for a caller held to `Patient/<compartment>`. */
export function targetRefusal(res: FHIRExchangeResponse, interaction: Interaction, compartment: string, bases: readonly string[]): TargetRefusal {
  const target = `${interaction.type}/${interaction.id}`;
  const notKnown = (reason: string): TargetRefusal => ({ status: 404, reason, shown: `${target} is not known` });
  if (res.status === 404) return interaction.name === 'update' ? undefined : notKnown('the target does not exist');
  if (res.status === 410) return notKnown('the target was deleted: a compartment-bound caller does not write over a deleted id');
  if (res.status !== 200) {
    const reason = `the source answered ${res.status} to the read that checks the target against the patient compartment`;
    return { status: res.status >= 500 ? 502 : 403, reason, shown: reason };
  }
  let existing: unknown;
  try {
    existing = JSON.parse(res.body.toString('utf8'));
  } catch {
    existing = undefined;
  }
  const r = existing as { resourceType?: unknown; id?: unknown } | undefined;
  if (typeof r !== 'object' || r === null || r.resourceType !== interaction.type || r.id !== interaction.id) {
    const reason = 'the source\'s answer to the read that checks the target is not that resource';
    return { status: 502, reason, shown: reason };
  }
  if (!inCompartment(existing, compartment, bases)) return notKnown('the target is outside the patient compartment');
  if (!writableInCompartment(existing, compartment, bases)) {
    const reason = `${target} references another patient: a compartment-bound caller writes only resources all of whose patient references are its own`;
    return { status: 403, reason, shown: reason };
  }
  return undefined;
}
