/**
 * Search at the federated base `{prefix}/{federated}`: across every source the caller may search,
 * fanned out in parallel (the gateway's pool bounds the connections), entries tagged with their source
 * (`meta.source`, ids that name it: see `federatedResource`), merged (see `mergePages`), paged with one
 * signed token holding each source's position, `total` only when every source gave one (`_count=0`: the
 * total alone). A source that fails becomes an OperationOutcome entry (`search.mode: outcome`, with the
 * source's own issues) unless the caller asks for all or nothing (`Prefer: handling=strict`) or no
 * asked source answered: then the search fails, as the caller's error (the sources' 4xx) when every
 * source said so, else 502 (see `failedSearch`). Writes are never federated.
 * @module
 */
import { httpStatusOf, isFhirgateError } from '../errors.js';
import { operationOutcome } from '../fhir/index.js';
import type { IssueType } from '../fhir/operation-outcome.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { sourceRefusal } from './caller.js';
import type { Caller } from './caller.js';
import { auditRefused } from './audit-refusal.js';
import { accessFacts, identified, servedSources } from './facade-context.js';
import { federatedResource, sourceQuery } from './federated-id.js';
import type { FederatedView } from './federated-id.js';
import type { FacadeContext } from './facade-context.js';
import { fhirJSON, outcome } from './fhir-answer.js';
import { mergePages } from './federated-merge.js';
import type { SourcePage } from './federated-merge.js';
import type { Interaction } from './interaction.js';
import { isResourceType } from '../fhir/index.js';
import type { PageState } from './page-token.js';
import { SHOWN } from './identity-binding.js';
import { decide } from './policy.js';
import { recordAnswer, requestQuery } from './record-answer.js';
import { facadeAnswer } from './upstream-answer.js';
import { visibility } from './visible-entries.js';
import { checkFormat, PAGE_TOKEN_PARAM, upstreamRequest } from './upstream-request.js';
import { openPageToken, pageTokenOf, withPatients } from './page-token-route.js';
import { inSpan } from '../lib/trace-spans.js';

type Position = PageState['pages'][number];

/** The reply to a search under the federated base (`GET [type]?…`, `POST [type]/_search`, a page token); `rest` are the segments after its name. */
export async function answerFederatedSearch(ctx: FacadeContext, req: RouteRequest, rest: readonly string[]): Promise<RouteReply> {
  const name = ctx.options.federatedName;
  const searchPost = req.method === 'POST';
  const type = rest[0] === '_search' ? undefined : rest[0];
  if (type !== undefined && !isResourceType(type)) {
    const reason = `"${type.slice(0, 64)}" is not a resource type`;
    auditRefused(ctx, req, name, `${req.baseUrl}/${name}`, { name: 'search-type', conditional: false }, 404, reason);
    return outcome(404, 'not-found', reason);
  }
  const interaction: Interaction = { name: 'search-type', ...(type === undefined ? {} : { type }), conditional: false };
  const who = await identified(ctx, req, name, interaction);
  if ('reply' in who) return who.reply;
  const { caller } = who;
  const refuse = (status: number, code: 'forbidden' | 'invalid' | 'not-found' | 'not-supported', reason: string): RouteReply => {
    ctx.audit.record(accessFacts(ctx, req, name, interaction, caller), { outcome: 4, outcomeDesc: reason });
    return outcome(status, code, reason);
  };
  try {
    checkFormat(req.headers, req.query);
  } catch (error) {
    return refuse(406, 'not-supported', (error as Error).message);
  }
  const query = new URLSearchParams(req.query);
  if (searchPost) for (const [k, v] of new URLSearchParams((await req.bytes()).toString('utf8'))) query.append(k, v);
  let token: string | undefined;
  let state: Omit<PageState, 'caller'> | undefined;
  try {
    token = pageTokenOf(query, true);
    state = token === undefined ? undefined : openPageToken(ctx.tokens, token, caller, true, type);
  } catch (error) {
    return refuse(400, 'invalid', isFhirgateError(error) ? error.message : 'the page token is not valid');
  }
  if (state === undefined) {
    if (type === undefined) return refuse(404, 'not-found', `the federated base searches one type at a time: ${name}/[type]?…`);
    const countText = query.get('_count');
    const count = countText === null ? undefined : Number(countText);
    if (count !== undefined && (!/^\d+$/.test(countText!) || count > MAX_COUNT)) return refuse(400, 'invalid', `_count must be an integer from 0 to ${MAX_COUNT}`);
    const allowed = servedSources(ctx).filter((s) => decide(caller, s, interaction, query).allowed);
    if (allowed.length === 0 && identityRefusals(caller).length === 0) {
      const why = caller.identity !== undefined ? `the caller's patient is in no source it may search for ${type}`
        : caller.patient !== undefined && caller.patientSource === undefined ? sourceRefusal(caller, name) : `no source allows this caller to search ${type}`;
      return refuse(403, 'forbidden', why);
    }
    const sort = query.get('_sort');
    state = { federated: true, type, ...(count === undefined ? {} : { count }), ...(sort === null ? {} : { sort }), pages: allowed.map((source) => ({ source, link: '', skip: 0 })) };
  }
  const searchType: Interaction = { name: 'search-type', ...(state.type === undefined ? {} : { type: state.type }), conditional: false };
  const fetched = await Promise.all(state.pages.filter((p) => p.link !== null).map((p) => inSpan('fhirgate.federated.source', { 'fhirgate.source': p.source }, () => fetchPage(ctx, req, caller, searchType, query, p))));
  const failures = fetched.filter((r): r is Failure => 'failure' in r);
  // The sources refused for the caller's patient (ambiguous, failed resolution): named, never asked.
  const refusals = identityRefusals(caller);
  const answered = fetched.filter((r): r is Answered => 'page' in r);
  // No source asked (no id of the query names one, or every position is at its end): the search is audited here.
  if (failures.length === 0 && !answered.some((a) => a.asked)) ctx.audit.record(accessFacts(ctx, req, name, searchType, caller), { outcome: 0, query: requestQuery(req) });
  const strict = /handling=strict/i.test(String(req.headers.prefer ?? ''));
  if (failures.length > 0 && (strict || !answered.some((a) => a.asked))) return failedSearch(failures, strict);
  if (refusals.length > 0 && strict) return failedSearch(refusals, strict);
  const pages = answered.map((a) => a.page);
  const merged = mergePages(pages, state.count, state.sort);
  const base = `${req.baseUrl}/${name}`;
  // `_count=0` asks for the total only: no entries, so no page follows.
  const next = state.count !== 0 && merged.positions.some((p) => p.link !== null) ? ctx.tokens.sign({ ...state, caller: caller.id, pages: withPatients(caller, merged.positions) }) : undefined;
  const totals = pages.map((p) => p.total);
  const total = token === undefined && failures.length === 0 && totals.every((t) => t !== undefined) ? totals.reduce((a, b) => a! + b!, 0) : undefined;
  return fhirJSON(200, {
    resourceType: 'Bundle',
    type: 'searchset',
    ...(total === undefined ? {} : { total }),
    link: [{ relation: 'self', url: token === undefined ? `${base}/${state.type}${query.size > 0 ? `?${query}` : ''}` : `${base}?${PAGE_TOKEN_PARAM}=${token}` }, ...(next === undefined ? [] : [{ relation: 'next', url: `${base}?${PAGE_TOKEN_PARAM}=${next}` }])],
    entry: [...merged.entries, ...[...refusals, ...failures].map((f) => ({ resource: { resourceType: 'OperationOutcome', issue: f.issues }, search: { mode: 'outcome' } }))],
  });
}

/** The largest `_count` of a federated search (a merged page holds at most this many entries). */
const MAX_COUNT = 1000;

/** A source's page, and whether the source was asked (a source none of whose ids the query names is not). */
interface Answered {
  readonly page: SourcePage & { readonly total: number | undefined };
  readonly asked: boolean;
}

/** A source that gave no page: the status it counts as, whether that is the caller's error, and its issues (named by source). */
interface Failure {
  readonly failure: number;
  readonly callersError: boolean;
  readonly issues: readonly Record<string, unknown>[];
}

/**
 * Upstream 4xx answers that are not the caller's error: the gateway's own credentials (401, 403, 407)
 * and the upstream's time-out (408). Every other 4xx is (the gateway's HTTP face reads them alike).
 */
const UPSTREAM_FAULTS: ReadonlySet<number> = new Set([401, 403, 407, 408]);

/**
 * The answer when no page can be given (every asked source failed, or one did under `Prefer:
 * handling=strict`): when every failure is the caller's error, that status if the sources agree, else
 * 400; otherwise 502. The OperationOutcome holds every source's issues.
 */
function failedSearch(failures: readonly Failure[], strict: boolean): RouteReply {
  const issues = failures.flatMap((f) => f.issues);
  if (failures.every((f) => f.callersError)) {
    const status = failures[0]!.failure;
    return fhirJSON(failures.every((f) => f.failure === status) ? status : 400, { resourceType: 'OperationOutcome', issue: issues });
  }
  const lead = operationOutcome('error', 'exception', strict ? 'a source failed and all-or-nothing was asked (Prefer: handling=strict)' : 'no source answered the search');
  return fhirJSON(502, { ...lead, issue: [...lead.issue, ...issues] });
}

/** The sources the caller may use where its patient was refused (ambiguous, failed resolution), each a failure naming the source and why. */
function identityRefusals(caller: Caller): Failure[] {
  const refused = caller.identity?.refused;
  if (refused === undefined || refused.size === 0) return [];
  return [...refused].map(([source, why]) => failed(source, 403, false, why === SHOWN.ambiguous ? 'multiple-matches' : 'exception', `is refused for the caller's patient: ${why}`));
}

/** A failure of `source` with one issue of the facade's. */
function failed(source: string, status: number, callersError: boolean, code: IssueType, why: string): Failure {
  return { failure: status, callersError, issues: [{ severity: 'error', code, diagnostics: `source "${source}" ${why}` }] };
}

/**
 * A source's refusal: its own issues (its answer rewritten for the facade, so free of its address),
 * each named by the source; one issue saying the status when it gave none.
 */
function refused(source: string, status: number, body: Record<string, unknown> | undefined): Failure {
  const callersError = status >= 400 && status < 500 && !UPSTREAM_FAULTS.has(status);
  const own = body?.resourceType === 'OperationOutcome' && Array.isArray(body.issue) ? (body.issue as unknown[]).filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null) : [];
  if (own.length === 0) return failed(source, status, callersError, 'exception', `answered ${status}`);
  const issues = own.map((i) => ({ ...i, diagnostics: `source "${source}" answered ${status}${typeof i.diagnostics === 'string' ? `: ${i.diagnostics}` : ''}` }));
  return { failure: status, callersError, issues };
}

/**
 * One source's page at `position` (its first page when the link is `''`), rewritten and tagged; or why it
 * failed. A source that cannot match the federated ids the query names is not asked: an empty page.
 */
async function fetchPage(ctx: FacadeContext, req: RouteRequest, caller: Caller, interaction: Interaction, federatedQuery: URLSearchParams, position: Position): Promise<Answered | Failure> {
  const { source } = position;
  const sources = servedSources(ctx);
  const query = sourceQuery(federatedQuery, source, sources);
  if (query === undefined) return { page: { source, entries: [], pageLink: '', nextLink: null, skipped: 0, total: 0 }, asked: false };
  const decision = decide(caller, source, interaction, query);
  // A source's refusal (its policy, its limits) is one AuditEvent of that source, as at its own base.
  const audit = (reason: string) => ctx.audit.record(accessFacts(ctx, req, source, interaction, caller), { outcome: 4, outcomeDesc: reason, query: requestQuery(req) });
  if (!decision.allowed) {
    audit(decision.reason);
    return failed(source, decision.status, true, 'forbidden', decision.reason);
  }
  const slot = await ctx.limits.acquire(source, caller);
  if (slot.refused) {
    audit(slot.reason);
    return failed(source, 429, true, 'throttled', slot.reason);
  }
  const rewriter = ctx.rewriter(source, `${req.baseUrl}/${source}`);
  const view: FederatedView = { source, sourceBase: rewriter.facadeBase, sources };
  try {
    const request = upstreamRequest('GET', [interaction.type ?? ''].filter((s) => s !== ''), query, req.headers, undefined, interaction, decision.compartment, rewriter);
    const pageLink = position.link === '' ? request.path : position.link!;
    const res = await ctx.gateway.exchange(source, { ...request, path: pageLink }, { signal: req.connectionSignal });
    const answer = facadeAnswer(res, { source, interaction, compartment: decision.compartment, callerId: caller.id, rewriter, tokens: ctx.tokens, extraHeaders: {}, visible: visibility(caller, decision.compartment, rewriter.bases) });
    recordAnswer(ctx, req, source, interaction, caller, decision.compartment, answer.reply.status ?? res.status, answer.body, undefined, rewriter);
    if (res.status !== 200) return refused(source, res.status, answer.body);
    if (answer.body === undefined) return failed(source, 502, false, 'exception', 'answered 200 with a body that is not FHIR JSON');
    // The answer is parsed once (by facadeAnswer): its entries and the upstream's own next link come from there.
    const entries = ((answer.body.entry ?? []) as Record<string, unknown>[]).slice(position.skip).map((e) => tag(e, view, `${req.baseUrl}/${ctx.options.federatedName}`));
    const nextLink = answer.next ?? null;
    return { page: { source, entries, pageLink, nextLink, skipped: position.skip, total: typeof answer.body.total === 'number' ? answer.body.total : undefined }, asked: true };
  } catch (error) {
    const status = httpStatusOf(error);
    ctx.audit.record(accessFacts(ctx, req, source, interaction, caller), { outcome: 8, outcomeDesc: `source failed: ${isFhirgateError(error) ? error.code : 'error'}` });
    return failed(source, status >= 500 ? status : 502, false, status === 504 ? 'timeout' : 'exception', `failed (${status}${isFhirgateError(error) ? ` ${error.code}` : ''})`);
  } finally {
    slot.release();
  }
}

/**
 * An entry as the federated base shows it: its resource federated (see `federatedResource`), `fullUrl`
 * at the federated base (at the source's base when its id cannot be federated), and an `alternate` link
 * to the resource at its source's base, where it is written.
 */
function tag(entry: Record<string, unknown>, view: FederatedView, federatedBase: string): Record<string, unknown> {
  const resource = entry.resource as Record<string, unknown> | undefined;
  if (resource === undefined) return entry;
  const shown = federatedResource(resource, view);
  if (typeof resource.id !== 'string') return { ...entry, resource: shown };
  const type = String(resource.resourceType);
  const atSource = `${view.sourceBase}/${type}/${resource.id}`;
  const links = Array.isArray(entry.link) ? (entry.link as unknown[]) : [];
  return { ...entry, fullUrl: shown.id === resource.id ? atSource : `${federatedBase}/${type}/${String(shown.id)}`, link: [...links, { relation: 'alternate', url: atSource }], resource: shown };
}
