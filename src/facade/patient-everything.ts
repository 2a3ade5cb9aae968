/**
 * `Patient/[id]/$everything` at the federated base (`GET {federated}/Patient/ehr.123/$everything`, or by
 * business identifier `GET {federated}/Patient/$everything?identifier=system|value`): one patient's record
 * from every source where the patient resolves (`gateway.resolvePatient`; without the gateway's `identity`
 * settings, the one source its id names), merged into one searchset Bundle with federated ids.
 *
 * - Per source: the source's own `$everything` when its CapabilityStatement lists it
 *   (`source-everything.ts`), else one search per type of the Patient compartment that the source
 *   states it searches by the compartment's parameter and the caller's scopes let it search, each held
 *   to that source's local patient. `_type`, `_since` (`_lastUpdated=ge…` on
 *   the searches) and `_count` (the merged page's size) are honoured; paging is the facade's page token,
 *   holding every stream's position and the local id of every source (a page whose source's patient
 *   changed since the first page is refused: call again).
 * - Each source's Patient gets a `Patient.link` of type `seealso` to every other source's Patient.
 * - A source where the resolution is ambiguous, or which the caller's policy refuses for this patient, is
 *   an OperationOutcome entry naming it; one that failed (during the resolution or now) too, unless the
 *   caller asked all or nothing (`Prefer: handling=strict`) or no source answered: then the whole answer
 *   fails (see `failedSearch`). A source without
 *   the patient is not asked. Nothing of a refused source is shown.
 * - The same entry (`fullUrl`) is never given twice on a page.
 * @module
 */
import { FhirgateError, isFhirgateError } from '../errors.js';
import { isResourceType } from '../fhir/index.js';
import type { PatientQuery, PatientResolution } from '../gateway/index.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { mayUseSource, sourceRefusal } from './caller.js';
import type { Caller } from './caller.js';
import { compartmentParam, compartmentTypes } from './compartment.js';
import { recordResolution } from './audit-resolution.js';
import { accessFacts, identified, servedSources } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';
import { federatedReference, resolveFederatedId } from './federated-id.js';
import { mergePages } from './federated-merge.js';
import { failed, failedSearch, fetchSourcePage, MAX_COUNT } from './federated-page.js';
import type { Answered, Failure, Position } from './federated-page.js';
import { fhirJSON, outcome } from './fhir-answer.js';
import type { Interaction } from './interaction.js';
import type { EverythingState, PageState } from './page-token.js';
import { openPageToken, pageTokenOf, withPatients } from './page-token-route.js';
import { decide } from './policy.js';
import { statedFacts } from './source-everything.js';
import { checkFormat, PAGE_TOKEN_PARAM } from './upstream-request.js';

/** The operation's name. */
const OPERATION = '$everything';

/** The parameters of a first page (a later page takes its token alone: see `page-token-route.ts`). */
const FIRST_PAGE_PARAMS: ReadonlySet<string> = new Set(['identifier', '_since', '_type', '_count', '_format']);

/** A FHIR `instant` (what `_since` is). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

type Code = 'forbidden' | 'invalid' | 'not-found' | 'not-supported' | 'exception';

/** Why the request is refused before anything is fetched. */
interface Refusal {
  readonly status: number;
  readonly code: Code;
  readonly reason: string;
}

/** What a page fetches: the token's state (the caller's id added when signed), and the first page's outcome entries. */
interface Plan {
  readonly state: Omit<PageState, 'caller'> & { readonly everything: EverythingState };
  /** Issues of sources shown on the first page only (ambiguous, refused, not searched). */
  readonly issues: readonly Record<string, unknown>[];
  /** Sources that failed during the resolution. */
  readonly failures: readonly Failure[];
}

const refusal = (status: number, code: Code, reason: string): Refusal => ({ status, code, reason });

/** True when `rest` (the segments after the federated base's name) ask `$everything`. */
export function asksEverything(rest: readonly string[]): boolean {
  return rest[0] === 'Patient' && rest[rest.length - 1] === OPERATION && (rest.length === 2 || rest.length === 3);
}

/** The reply to `GET {federated}/Patient/[id]/$everything` or `GET {federated}/Patient/$everything?…`. */
export async function answerPatientEverything(ctx: FacadeContext, req: RouteRequest, rest: readonly string[]): Promise<RouteReply> {
  const name = ctx.options.federatedName;
  const id = rest.length === 3 ? rest[1] : undefined;
  const interaction: Interaction = { name: 'operation', type: 'Patient', ...(id === undefined ? {} : { id }), operation: OPERATION, conditional: false };
  const who = await identified(ctx, req, name, interaction);
  if ('reply' in who) return who.reply;
  const { caller } = who;
  const refuse = (r: Refusal): RouteReply => {
    ctx.audit.record(accessFacts(ctx, req, name, interaction, caller), { outcome: r.status >= 500 ? 8 : 4, outcomeDesc: r.reason });
    return outcome(r.status, r.code, r.reason);
  };
  try {
    checkFormat(req.headers, req.query);
  } catch (error) {
    return refuse(refusal(406, 'not-supported', (error as Error).message));
  }
  let plan: Plan | Refusal;
  try {
    if (!caller.operations.has(OPERATION)) return refuse(refusal(403, 'forbidden', `operation ${OPERATION} is not allowed`));
    const token = pageTokenOf(req.query, true);
    plan = token === undefined ? await firstPage(ctx, req, caller, id) : await laterPage(ctx, req, caller, token);
  } catch (error) {
    if (isFhirgateError(error, 'ERR_PAGE_TOKEN')) return refuse(refusal(400, 'invalid', error.message));
    throw error;
  }
  if (!('state' in plan)) return refuse(plan);
  const { state } = plan;
  const params = new URLSearchParams(state.everything.params);
  const fetched = await Promise.all(state.pages.filter((p) => p.link !== null).map((p) => fetchStream(ctx, req, caller, state.everything, params, p)));
  const failures = [...plan.failures, ...fetched.filter((r): r is Failure => 'failure' in r)];
  const strict = /handling=strict/i.test(String(req.headers.prefer ?? ''));
  const answered = fetched.filter((r): r is Answered => 'page' in r);
  // As a federated search: nothing answered is a failed request, never an empty record that looks whole.
  if (failures.length > 0 && (strict || answered.length === 0)) return failedSearch(failures, strict);
  const merged = mergePages(answered.map((a) => a.page), state.count, undefined);
  const base = `${req.baseUrl}/${name}`;
  const next = state.count !== 0 && merged.positions.some((p) => p.link !== null) ? ctx.tokens.sign({ ...state, caller: caller.id, pages: withPatients(caller, merged.positions) }) : undefined;
  const issues = [...plan.issues, ...failures.flatMap((f) => f.issues)];
  return fhirJSON(200, {
    resourceType: 'Bundle',
    type: 'searchset',
    link: [{ relation: 'self', url: `${base}/${rest.join('/')}${req.query.size > 0 ? `?${req.query}` : ''}` }, ...(next === undefined ? [] : [{ relation: 'next', url: `${base}/Patient/${OPERATION}?${PAGE_TOKEN_PARAM}=${next}` }])],
    entry: [...linked(once(merged.entries), state.everything.patients, req.baseUrl, servedSources(ctx)), ...(issues.length === 0 ? [] : [{ resource: { resourceType: 'OperationOutcome', issue: issues }, search: { mode: 'outcome' } }])],
  });
}

/** The first page's plan: the parameters checked, the patient resolved, each source's streams. */
async function firstPage(ctx: FacadeContext, req: RouteRequest, caller: Caller, id: string | undefined): Promise<Plan | Refusal> {
  const q = req.query;
  for (const key of q.keys()) {
    if (!FIRST_PAGE_PARAMS.has(key)) return refusal(400, 'not-supported', `${OPERATION} at the federated base takes identifier, _since, _type and _count, not "${key.slice(0, 64)}"`);
  }
  for (const key of ['identifier', '_since', '_count']) if (q.getAll(key).length > 1) return refusal(400, 'invalid', `${key} is given more than once`);
  const identifier = q.get('identifier');
  if ((id === undefined) === (identifier === null)) return refusal(400, 'invalid', `name the patient by its id (Patient/[source].[id]/${OPERATION}) or by ?identifier=system|value: one of them`);
  const countText = q.get('_count');
  if (countText !== null && (!/^\d+$/.test(countText) || Number(countText) > MAX_COUNT)) return refusal(400, 'invalid', `_count must be an integer from 0 to ${MAX_COUNT}`);
  const since = q.get('_since');
  if (since !== null && !INSTANT.test(since)) return refusal(400, 'invalid', '_since must be a FHIR instant (2026-01-31T12:00:00Z)');
  const typeList = q.getAll('_type').flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  const unknown = typeList.find((t) => !isResourceType(t));
  if (unknown !== undefined) return refusal(400, 'invalid', `_type: "${unknown.slice(0, 64)}" is not a resource type`);
  const sources = servedSources(ctx);
  const usable = sources.filter((s) => mayUseSource(caller, s));
  let query: PatientQuery;
  if (id !== undefined) {
    const named = resolveFederatedId(id, sources);
    if (named === undefined) return refusal(404, 'not-found', `Patient/${id.slice(0, 64)} is not an id of this base (ids here are [source].[id])`);
    if (!mayUseSource(caller, named.source)) return refusal(403, 'forbidden', sourceRefusal(caller, named.source));
    query = { source: named.source, id: named.id };
  } else {
    query = { identifier: identifier! };
  }
  const resolved = await resolve(ctx, query, usable, req.connectionSignal);
  if ('status' in resolved) return resolved;
  if (!resolved.alone) recordResolution(ctx, req, caller, ctx.options.federatedName, resolved.resolution, query);
  const { resolution, alone } = resolved;
  const origin = 'source' in query ? resolution.outcomes.find((o) => o.source === query.source) : undefined;
  if (origin !== undefined && origin.status === 'absent') return refusal(404, 'not-found', `Patient/${id!} is not known`);
  if (origin !== undefined && origin.status === 'failed') return refusal(502, 'exception', `source "${origin.source}" could not be asked for the patient (${origin.code})`);
  const patients: Record<string, string> = {};
  const issues: Record<string, unknown>[] = [];
  const failures: Failure[] = [];
  const forbidden: { severity: 'error'; code: 'forbidden'; diagnostics: string }[] = [];
  if (alone) issues.push({ severity: 'information', code: 'informational', diagnostics: `only source "${origin!.source}" was searched: the gateway has no identity settings to find the patient in other sources` });
  for (const o of resolution.outcomes) {
    // The resolver's reason names the records that matched: ids of other people, not the caller's to see.
    if (o.status === 'ambiguous') issues.push({ severity: 'error', code: 'multiple-matches', diagnostics: `source "${o.source}" is refused for this patient: ${o.ids.length} different records there match the patient's identifiers` });
    else if (o.status === 'failed') failures.push(failed(o.source, 502, false, o.code === 'ERR_TIMEOUT' ? 'timeout' : 'exception', `could not be asked for the patient (${o.code})`));
    if (o.status !== 'found') continue;
    const decision = decide(caller, o.source, { name: 'operation', type: 'Patient', id: o.id, operation: OPERATION, conditional: false }, q);
    if (decision.allowed) patients[o.source] = o.id;
    else if (o.source === origin?.source) return refusal(decision.status, 'forbidden', decision.reason);
    else forbidden.push({ severity: 'error', code: 'forbidden', diagnostics: `source "${o.source}": ${decision.reason}` });
  }
  if (Object.keys(patients).length === 0 && failures.length === 0) {
    // Nothing to show: refused where the patient is (the policy's reasons), or found nowhere.
    if (forbidden.length > 0) return refusal(403, 'forbidden', forbidden.map((i) => i.diagnostics).join('; '));
    if (issues.length === 0) return refusal(404, 'not-found', 'no source knows a patient with that identifier');
  }
  issues.push(...forbidden);
  const params = new URLSearchParams();
  if (countText !== null) params.set('_count', countText);
  if (since !== null) params.set('_since', since);
  if (typeList.length > 0) params.set('_type', typeList.join(','));
  const streams = await Promise.all(Object.entries(patients).map(([source]) => streamsOf(ctx, req, caller, source, typeList, params)));
  return {
    state: {
      federated: true,
      type: 'Patient',
      ...(countText === null ? {} : { count: Number(countText) }),
      everything: { query: JSON.stringify(query), patients, params: params.toString() },
      pages: streams.flat(),
    },
    issues,
    failures,
  };
}

/** A later page's plan: the token opened and its patients checked against the resolution now. */
async function laterPage(ctx: FacadeContext, req: RouteRequest, caller: Caller, token: string): Promise<Plan | Refusal> {
  const state = openPageToken(ctx.tokens, token, caller, true, 'Patient');
  const everything = state.everything;
  if (everything === undefined) throw new FhirgateError('ERR_PAGE_TOKEN', `the page token is for a search, not for ${OPERATION}`);
  const sources = Object.keys(everything.patients);
  const query = JSON.parse(everything.query) as PatientQuery;
  const resolved = await resolve(ctx, query, sources, req.connectionSignal);
  if ('status' in resolved) return resolved;
  if (!resolved.alone) recordResolution(ctx, req, caller, ctx.options.federatedName, resolved.resolution, query);
  for (const source of sources) {
    const now = resolved.resolution.outcomes.find((o) => o.source === source);
    if (now?.status !== 'found' || now.id !== everything.patients[source]) {
      throw new FhirgateError('ERR_PAGE_TOKEN', `the patient's record in source "${source}" changed since the first page: call ${OPERATION} again`);
    }
  }
  return { state: { ...state, everything }, issues: [], failures: [] };
}

/**
 * The patient resolved in `sources`. Without the gateway's `identity` settings (its `resolvePatient`
 * throws at once, as documented), a patient named by its id is that source's alone (`alone`); one
 * named by identifier cannot be found.
 */
async function resolve(ctx: FacadeContext, query: PatientQuery, sources: readonly string[], signal: AbortSignal): Promise<{ resolution: PatientResolution; alone: boolean } | Refusal> {
  let pending: Promise<PatientResolution>;
  try {
    pending = ctx.gateway.resolvePatient(query, { sources, signal });
  } catch {
    if (!('source' in query)) return refusal(400, 'not-supported', `${OPERATION}?identifier= needs the gateway's identity settings (docs/facade.md, "Identity")`);
    return { resolution: { query: `${query.source}/Patient/${query.id}`, identifiers: [], outcomes: [{ source: query.source, status: 'found', id: query.id, seeAlso: [] }], cached: false }, alone: true };
  }
  try {
    return { resolution: await pending, alone: false };
  } catch (error) {
    // A malformed identifier, or a system the identity settings do not name: the caller's to fix.
    if (error instanceof TypeError) return refusal(400, 'invalid', error.message.slice(0, 300));
    return refusal(502, 'exception', `the patient could not be resolved (${isFhirgateError(error) ? error.code : 'error'})`);
  }
}

/**
 * The streams of `source`: its own `$everything` when its statement lists it, else one compartment
 * search per type (of `typeList`, when given) the caller may search and the source searches by the
 * compartment's parameter (all of the compartment when it states nothing).
 */
async function streamsOf(ctx: FacadeContext, req: RouteRequest, caller: Caller, source: string, typeList: readonly string[], params: URLSearchParams): Promise<Position[]> {
  const facts = await statedFacts(ctx, req, caller, source);
  if (facts?.everything === true) return [{ source, type: OPERATION, link: '', skip: 0 }];
  const searched = (type: string): boolean => {
    const stated = facts?.types.get(type);
    return facts === undefined || (stated !== undefined && stated.interactions.has('search-type') && (stated.params.size === 0 || stated.params.has(compartmentParam(type)!)));
  };
  const types = compartmentTypes().filter((t) => (typeList.length === 0 || typeList.includes(t)) && searched(t) && decide(caller, source, search(t), streamQuery(t, params)).allowed);
  return types.map((type) => ({ source, type, link: '', skip: 0 }));
}

/** One stream's page: the source's `$everything`, or a search of one type; held to the source's local patient. */
function fetchStream(ctx: FacadeContext, req: RouteRequest, caller: Caller, everything: EverythingState, params: URLSearchParams, position: Position): Promise<Answered | Failure> {
  const type = position.type ?? 'Patient';
  const local = everything.patients[position.source]!;
  const interaction: Interaction = type === OPERATION ? { name: 'operation', type: 'Patient', id: local, operation: OPERATION, conditional: false } : search(type);
  return fetchSourcePage(ctx, req, caller, interaction, streamQuery(type, params), position, local);
}

const search = (type: string): Interaction => ({ name: 'search-type', type, conditional: false });

/** A stream's own parameters: the operation's as given; a search's `_count`, and `_since` as `_lastUpdated=ge…`. */
function streamQuery(type: string, params: URLSearchParams): URLSearchParams {
  if (type === OPERATION) return params;
  const q = new URLSearchParams();
  const count = params.get('_count');
  const since = params.get('_since');
  if (count !== null) q.set('_count', count);
  if (since !== null) q.set('_lastUpdated', `ge${since}`);
  return q;
}

/** `entries` without a second entry of the same `fullUrl`. */
function once(entries: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    if (typeof e.fullUrl !== 'string') return true;
    if (seen.has(e.fullUrl)) return false;
    seen.add(e.fullUrl);
    return true;
  });
}

/** `entries` with each source's Patient linked (`seealso`) to the other sources' Patients of `patients`. */
function linked(entries: Record<string, unknown>[], patients: Readonly<Record<string, string>>, baseUrl: string, sources: readonly string[]): Record<string, unknown>[] {
  const found = Object.entries(patients);
  if (found.length < 2) return entries;
  const reference = (source: string, id: string) => federatedReference(`Patient/${id}`, { source, sourceBase: `${baseUrl}/${source}`, sources });
  const atSource = new Map(found.map(([source, id]) => [`${baseUrl}/${source}/Patient/${id}`, source]));
  return entries.map((entry) => {
    const resource = entry.resource as Record<string, unknown> | undefined;
    if (resource?.resourceType !== 'Patient') return entry;
    const alternate = (Array.isArray(entry.link) ? (entry.link as { relation?: unknown; url?: unknown }[]) : []).find((l) => l.relation === 'alternate')?.url;
    const source = typeof alternate === 'string' ? atSource.get(alternate) : undefined;
    if (source === undefined) return entry;
    const links = Array.isArray(resource.link) ? (resource.link as { other?: { reference?: unknown } }[]) : [];
    const known = new Set(links.map((l) => l.other?.reference));
    const added = found.filter(([s]) => s !== source).map(([s, id]) => reference(s, id)).filter((r) => !known.has(r)).map((r) => ({ other: { reference: r }, type: 'seealso' }));
    return added.length === 0 ? entry : { ...entry, resource: { ...resource, link: [...links, ...added] } };
  });
}
