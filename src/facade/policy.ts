/**
 * The facade's access decision for one interaction of one caller on one source: denied unless the
 * caller's scopes (and operation list) allow it, and held to the caller's patient compartment when it
 * has one. Reads outside the compartment are answered 404 (existence does not leak); what the
 * compartment cannot bound (system-wide searches, conditional writes, bundles, chains) is refused.
 * @module
 */
import { mayUseSource, patientIn, sourceRefusal } from './caller.js';
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
  | { readonly allowed: false; readonly status: 403 | 404 | 412; readonly reason: string };

/** What {@link decide} reads besides the query: the conditional create's criteria, and whether a body came. */
export interface DecideExtras {
  /** The `If-None-Exist` header (or a Bundle entry's `request.ifNoneExist`). */
  readonly ifNoneExist?: string;
  /** True when the request has a body (an operation's `Parameters`, which the policy does not read). */
  readonly body?: boolean;
}

const refuse = (status: 403 | 404 | 412, reason: string): Decision => ({ allowed: false, status, reason });

/**
 * The parameters that are no search criteria: the facade's own (`_page_token`, `_format`) and FHIR's
 * result parameters. A conditional write with none but these would match every resource of its type.
 */
const NOT_CRITERIA: ReadonlySet<string> = new Set([
  '_page_token', '_format', '_pretty', '_summary', '_elements', '_count', '_sort', '_total', '_include', '_revinclude', '_contained', '_containedType',
]);

/**
 * Decides whether `caller` may perform `interaction` on `source` with `params` (the query string and,
 * for a `POST …/_search`, its form body: one parameter policy for both).
 */
export function decide(caller: Caller, source: string, interaction: Interaction, params: URLSearchParams, extras: DecideExtras = {}): Decision {
  if (!mayUseSource(caller, source)) return refuse(403, sourceRefusal(caller, source));
  const { name, type } = interaction;
  if (name === 'capabilities') return { allowed: true, compartment: undefined };
  // The patient's local id here (a bare id: its one source's; by identity: this source's), or nothing of this source.
  const patient = patientIn(caller, source);
  if (caller.patient !== undefined && patient === undefined) return refuse(403, sourceRefusal(caller, source));
  if (name === 'operation') return decideOperation(caller, patient, interaction, params, extras.body === true);
  if (name === 'batch' || name === 'transaction') {
    return caller.patient !== undefined ? refuse(403, 'bundles are not allowed for a compartment-bound caller') : { allowed: true, compartment: undefined };
  }
  const letter = letterOf(name)!;
  const access = scopeAccess(caller.scopes, type ?? '*', letter);
  if (access === undefined) {
    // The open facade (no callers, loopback) reads and searches only: say what a write needs.
    const why = caller.kind === 'anonymous' ? ': the facade without callers is open for read and search only; configure callers for writes (docs/cli.md, "Callers")' : '';
    return refuse(403, `scope does not allow ${name}${type === undefined ? '' : ` on ${type}`}${why}`);
  }
  if (interaction.conditional && !hasCriteria(name === 'create' ? new URLSearchParams(extras.ifNoneExist ?? '') : params)) {
    return refuse(412, `a conditional ${name} needs search criteria: without any it would match every ${type} (${[...NOT_CRITERIA].join(', ')} are none)`);
  }
  if (access === 'open' && patient === undefined) return { allowed: true, compartment: undefined };
  if (patient === undefined) return refuse(403, 'patient scopes without a patient in context');
  if (type === undefined || compartmentParam(type) === undefined) return refuse(letter === 'r' ? 404 : 403, `${type ?? 'a system-wide interaction'} is outside the patient compartment`);
  if (interaction.conditional) return refuse(403, 'conditional writes are not allowed for a compartment-bound caller');
  if (name === 'history-type') return refuse(403, 'type history is not allowed for a compartment-bound caller');
  if (type === 'Patient' && interaction.id !== undefined && interaction.id !== patient) return refuse(404, 'outside the patient compartment');
  if (letter === 's' && !caller.allowReaching) {
    const reaching = reachingParams(params);
    if (reaching.length > 0) return refuse(403, `parameters that reach outside the patient compartment: ${reaching.join(', ')}`);
  }
  return { allowed: true, compartment: patient };
}

/**
 * `$operations` are allowed by name; a compartment-bound caller only on its own Patient (`patient`: its id at the source). Their answers
 * are cut to what the caller may read (see `visible-entries.ts`); `$export`, whose files the facade
 * cannot cut, only when the caller may read every type it would export.
 */
function decideOperation(caller: Caller, patient: string | undefined, interaction: Interaction, params: URLSearchParams, body: boolean): Decision {
  if (!caller.operations.has(interaction.operation!)) return refuse(403, `operation ${interaction.operation} is not allowed`);
  if (interaction.operation === '$export') {
    const why = exportRefusal(caller, params, body);
    if (why !== undefined) return refuse(403, why);
  }
  if (patient === undefined) return { allowed: true, compartment: undefined };
  if (interaction.type === 'Patient' && interaction.id === patient) return { allowed: true, compartment: patient };
  return refuse(403, `operation ${interaction.operation} outside the patient compartment`);
}

/**
 * Why `caller` may not start this `$export`: a caller that may read every type (`system/*.r`) may
 * export anything; any other must name the types in `_type` (by GET: a POST kick-off's `Parameters` are
 * not read), each of them (and of `_typeFilter`) readable by its scopes.
 */
function exportRefusal(caller: Caller, params: URLSearchParams, body: boolean): string | undefined {
  if (scopeAccess(caller.scopes, '*', 'r') === 'open') return undefined;
  if (body) return '$export by POST is allowed only to a caller that may read every type; send GET with _type';
  const types = params.getAll('_type').flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  if (types.length === 0) return '$export without _type would export every type: name the types in _type';
  const filtered = params.getAll('_typeFilter').flatMap((t) => t.split(',')).filter((t) => t.includes('?')).map((t) => t.split('?')[0]!.trim());
  const outside = [...new Set([...types, ...filtered])].filter((t) => scopeAccess(caller.scopes, t, 'r') !== 'open');
  return outside.length === 0 ? undefined : `$export of types the scopes do not allow reading: ${outside.join(', ').slice(0, 200)}`;
}

/** True when `params` hold a search criterion (a parameter that is neither the facade's nor a result parameter). */
function hasCriteria(params: URLSearchParams): boolean {
  for (const key of params.keys()) if (!NOT_CRITERIA.has(key.split(':')[0]!)) return true;
  return false;
}
