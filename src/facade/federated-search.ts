/**
 * Search at the federated base `{prefix}/{federated}`: across every source the caller may search,
 * fanned out in parallel (the gateway's pool bounds the connections), entries tagged with their source
 * (`meta.source`, ids that name it: see `federatedResource`), merged (see `mergePages`), paged with one
 * signed token holding each source's position, `total` only when every source gave one. A source that
 * fails becomes an OperationOutcome entry (`search.mode: outcome`) unless the caller asks for all or
 * nothing (`Prefer: handling=strict`). Writes are never federated.
 * @module
 */
import { httpStatusOf, isFhirgateError } from '../errors.js';
import { operationOutcome } from '../fhir/index.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
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
import { decide } from './policy.js';
import { recordAnswer, requestQuery } from './record-answer.js';
import { facadeAnswer } from './upstream-answer.js';
import { checkFormat, PAGE_TOKEN_PARAM, upstreamRequest } from './upstream-request.js';

type Position = PageState['pages'][number];

/** The reply to a search under the federated base (`GET [type]?…`, `POST [type]/_search`, a page token); `rest` are the segments after its name. */
export async function answerFederatedSearch(ctx: FacadeContext, req: RouteRequest, rest: readonly string[]): Promise<RouteReply> {
  const name = ctx.options.federatedName;
  const token = req.method === 'GET' && rest.length === 0 ? req.query.get(PAGE_TOKEN_PARAM) : null;
  const searchPost = req.method === 'POST';
  const type = rest[0];
  if (type !== undefined && !isResourceType(type)) {
    const reason = `"${type.slice(0, 64)}" is not a resource type`;
    auditRefused(ctx, req, name, `${req.baseUrl}/${name}`, { name: 'search-type', conditional: false }, 404, reason);
    return outcome(404, 'not-found', reason);
  }
  const interaction: Interaction = { name: 'search-type', ...(type === undefined ? {} : { type }), conditional: false };
  const who = await identified(ctx, req, name, interaction);
  if ('reply' in who) return who.reply;
  const { caller } = who;
  const refuse = (status: number, code: 'forbidden' | 'invalid' | 'not-supported', reason: string): RouteReply => {
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
  let state: Omit<PageState, 'caller'>;
  if (token !== null) {
    try {
      state = ctx.tokens.open(token, caller.id);
    } catch (error) {
      return refuse(400, 'invalid', isFhirgateError(error) ? error.message : 'the page token is not valid');
    }
  } else {
    const countText = query.get('_count');
    const count = countText === null ? undefined : Number(countText);
    if (count !== undefined && (!Number.isInteger(count) || count < 0 || count > 1000)) return refuse(400, 'invalid', '_count must be an integer from 0 to 1000');
    const allowed = servedSources(ctx).filter((s) => decide(caller, s, interaction, query).allowed);
    if (allowed.length === 0) return refuse(403, 'forbidden', `no source allows this caller to search ${type}`);
    state = { type, ...(count === undefined ? {} : { count }), ...(query.get('_sort') === null ? {} : { sort: query.get('_sort')! }), pages: allowed.map((source) => ({ source, link: '', skip: 0 })) };
  }
  const searchType: Interaction = { name: 'search-type', ...(state.type === undefined ? {} : { type: state.type }), conditional: false };
  const results = await Promise.all(state.pages.filter((p) => p.link !== null).map((p) => fetchPage(ctx, req, caller, searchType, query, p)));
  // No source asked (no id of the query names one, or every position is at its end): the search is audited here.
  if (results.every((r) => !('failed' in r) && r.pageLink === '')) ctx.audit.record(accessFacts(ctx, req, name, searchType, caller), { outcome: 0, query: requestQuery(req) });
  const failures = results.filter((r): r is { failed: string } => 'failed' in r);
  if (failures.length > 0 && /handling=strict/i.test(String(req.headers.prefer ?? ''))) {
    return fhirJSON(502, { ...operationOutcome('error', 'exception', 'a source failed and all-or-nothing was asked (Prefer: handling=strict)'), issue: failures.map((f) => ({ severity: 'error', code: 'exception', diagnostics: f.failed })) });
  }
  const pages = results.filter((r): r is SourcePage & { total: number | undefined } => !('failed' in r));
  const merged = mergePages(pages, state.count, state.sort);
  const base = `${req.baseUrl}/${name}`;
  const next = merged.positions.some((p) => p.link !== null) ? ctx.tokens.sign({ ...state, caller: caller.id, pages: merged.positions }) : undefined;
  const totals = pages.map((p) => p.total);
  const total = token === null && failures.length === 0 && totals.every((t) => t !== undefined) ? totals.reduce((a, b) => a! + b!, 0) : undefined;
  return fhirJSON(200, {
    resourceType: 'Bundle',
    type: 'searchset',
    ...(total === undefined ? {} : { total }),
    link: [{ relation: 'self', url: token === null ? `${base}/${state.type}${query.size > 0 ? `?${query}` : ''}` : `${base}?${PAGE_TOKEN_PARAM}=${token}` }, ...(next === undefined ? [] : [{ relation: 'next', url: `${base}?${PAGE_TOKEN_PARAM}=${next}` }])],
    entry: [...merged.entries, ...failures.map((f) => ({ resource: operationOutcome('error', 'exception', f.failed), search: { mode: 'outcome' } }))],
  });
}

/**
 * One source's page at `position` (its first page when the link is `''`), rewritten and tagged; or why it
 * failed. A source that cannot match the federated ids the query names is not asked: an empty page.
 */
async function fetchPage(ctx: FacadeContext, req: RouteRequest, caller: Caller, interaction: Interaction, federatedQuery: URLSearchParams, position: Position): Promise<(SourcePage & { total: number | undefined }) | { failed: string }> {
  const { source } = position;
  const sources = servedSources(ctx);
  const query = sourceQuery(federatedQuery, source, sources);
  if (query === undefined) return { source, entries: [], pageLink: '', nextLink: null, skipped: 0, total: 0 };
  const decision = decide(caller, source, interaction, query);
  // A source's refusal (its policy, its limits) is one AuditEvent of that source, as at its own base.
  const refused = (reason: string) => {
    ctx.audit.record(accessFacts(ctx, req, source, interaction, caller), { outcome: 4, outcomeDesc: reason, query: requestQuery(req) });
    return { failed: `source "${source}": ${reason}` };
  };
  if (!decision.allowed) return refused(decision.reason);
  const slot = await ctx.limits.acquire(source, caller);
  if (slot.refused) return refused(slot.reason);
  const rewriter = ctx.rewriter(source, `${req.baseUrl}/${source}`);
  const view: FederatedView = { source, sourceBase: rewriter.facadeBase, sources };
  try {
    const request = upstreamRequest('GET', [interaction.type ?? ''].filter((s) => s !== ''), query, req.headers, undefined, interaction, decision.compartment, rewriter);
    const pageLink = position.link === '' ? request.path : position.link!;
    const res = await ctx.gateway.exchange(source, { ...request, path: pageLink }, { signal: req.connectionSignal });
    if (res.status !== 200) {
      recordAnswer(ctx, req, source, interaction, caller, decision.compartment, res.status, undefined, undefined, rewriter);
      return { failed: `source "${source}" answered ${res.status}` };
    }
    const raw = JSON.parse(res.body.toString('utf8')) as { total?: unknown; link?: { relation?: string; url?: string }[] };
    const answer = facadeAnswer(res, { source, interaction, compartment: decision.compartment, callerId: caller.id, rewriter, tokens: ctx.tokens, extraHeaders: {} });
    recordAnswer(ctx, req, source, interaction, caller, decision.compartment, answer.reply.status ?? 200, answer.body, undefined, rewriter);
    const entries = ((answer.body?.entry ?? []) as Record<string, unknown>[]).slice(position.skip).map((e) => tag(e, view, `${req.baseUrl}/${ctx.options.federatedName}`));
    const nextLink = raw.link?.find((l) => l.relation === 'next')?.url ?? null;
    return { source, entries, pageLink, nextLink, skipped: position.skip, total: typeof raw.total === 'number' ? raw.total : undefined };
  } catch (error) {
    const status = httpStatusOf(error);
    ctx.audit.record(accessFacts(ctx, req, source, interaction, caller), { outcome: 8, outcomeDesc: `source failed: ${isFhirgateError(error) ? error.code : 'error'}` });
    return { failed: `source "${source}" failed (${status}${isFhirgateError(error) ? ` ${error.code}` : ''})` };
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
