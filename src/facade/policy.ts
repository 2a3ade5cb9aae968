/**
 * The facade's access decision for one interaction of one caller on one source: denied unless the
 * caller's scopes (and operation list) allow it, and held to the caller's patient compartment when it
 * has one. Reads outside the compartment are answered 404 (existence does not leak); what the
 * compartment cannot bound (system-wide searches, conditional writes, bundles, chains) is refused.
 * @module
 */
import { mayUseSource, sourceRefusal } from './caller.js';
import type { Caller } from './caller.js';
import { compartmentParam, reachingParams } from './compartment.js';
import type { Interaction } from './interaction.js';
import { letterOf } from './interaction.js';
import { scopeAccess } from './scopes.js';

/**
 * The decision: allowed (with the patient id of the compartment it is held to, if any), or refused
 * with the status to answer (403, or 404 where a refusal would tell that something exists) and a reason
 * for the audit and the OperationOutcome.
 */
export type Decision =
  | { readonly allowed: true; readonly compartment: string | undefined }
  | { readonly allowed: false; readonly status: 403 | 404; readonly reason: string };

const refuse = (status: 403 | 404, reason: string): Decision => ({ allowed: false, status, reason });

/** Decides whether `caller` may perform `interaction` on `source` with `query`. */
export function decide(caller: Caller, source: string, interaction: Interaction, query: URLSearchParams): Decision {
  if (!mayUseSource(caller, source)) return refuse(403, sourceRefusal(caller, source));
  const { name, type } = interaction;
  if (name === 'capabilities') return { allowed: true, compartment: undefined };
  if (name === 'operation') return decideOperation(caller, interaction);
  if (name === 'batch' || name === 'transaction') {
    return caller.patient !== undefined ? refuse(403, 'bundles are not allowed for a compartment-bound caller') : { allowed: true, compartment: undefined };
  }
  const letter = letterOf(name)!;
  const access = scopeAccess(caller.scopes, type ?? '*', letter);
  if (access === undefined) return refuse(403, `scope does not allow ${name}${type === undefined ? '' : ` on ${type}`}`);
  if (access === 'open' && caller.patient === undefined) return { allowed: true, compartment: undefined };
  const patient = caller.patient;
  if (patient === undefined) return refuse(403, 'patient scopes without a patient in context');
  if (type === undefined || compartmentParam(type) === undefined) return refuse(letter === 'r' ? 404 : 403, `${type ?? 'a system-wide interaction'} is outside the patient compartment`);
  if (interaction.conditional) return refuse(403, 'conditional writes are not allowed for a compartment-bound caller');
  if (name === 'history-type') return refuse(403, 'type history is not allowed for a compartment-bound caller');
  if (type === 'Patient' && interaction.id !== undefined && interaction.id !== patient) return refuse(404, 'outside the patient compartment');
  if (letter === 's' && !caller.allowReaching) {
    const reaching = reachingParams(query);
    if (reaching.length > 0) return refuse(403, `parameters that reach outside the patient compartment: ${reaching.join(', ')}`);
  }
  return { allowed: true, compartment: patient };
}

/** `$operations` are allowed by name; a compartment-bound caller only on its own Patient. */
function decideOperation(caller: Caller, interaction: Interaction): Decision {
  if (!caller.operations.has(interaction.operation!)) return refuse(403, `operation ${interaction.operation} is not allowed`);
  if (caller.patient === undefined) return { allowed: true, compartment: undefined };
  if (interaction.type === 'Patient' && interaction.id === caller.patient) return { allowed: true, compartment: caller.patient };
  return refuse(403, `operation ${interaction.operation} outside the patient compartment`);
}
