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
import { isFhirgateError } from '../errors.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { sourceRefusal } from './caller.js';
import type { Caller } from './caller.js';
import { auditRefused } from './audit-refusal.js';
import { accessFacts, identified, servedSources } from './facade-context.js';
import { sourceQuery } from './federated-id.js';
import type { FacadeContext } from './facade-context.js';
import { fhirJSON, outcome } from './fhir-answer.js';
import { mergePages } from './federated-merge.js';
import { failed, failedSearch, fetchSourcePage, MAX_COUNT } from './federated-page.js';
import type { Answered, Failure, Position } from './federated-page.js';
import type { Interaction } from './interaction.js';
import { isResourceType } from '../fhir/index.js';
import type { PageState } from './page-token.js';
import { SHOWN } from './identity-binding.js';
import { decide } from './policy.js';
import { requestQuery } from './record-answer.js';
import { checkFormat, PAGE_TOKEN_PARAM } from './upstream-request.js';
import { openPageToken, pageTokenOf, withPatients } from './page-token-route.js';
import { inSpan } from '../lib/trace-spans.js';

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
    if (state?.everything !== undefined) return refuse(400, 'invalid', 'the page token is for Patient/$everything: follow its next link as given');
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

/** The sources the caller may use where its patient was refused (ambiguous, failed resolution), each a failure naming the source and why. */
function identityRefusals(caller: Caller): Failure[] {
  const refused = caller.identity?.refused;
  if (refused === undefined || refused.size === 0) return [];
  return [...refused].map(([source, why]) => failed(source, 403, false, why === SHOWN.ambiguous ? 'multiple-matches' : 'exception', `is refused for the caller's patient: ${why}`));
}

/**
 * One source's page at `position`: a source that cannot match the federated ids the query names is not
 * asked (an empty page); any other is fetched (see `fetchSourcePage`).
 */
async function fetchPage(ctx: FacadeContext, req: RouteRequest, caller: Caller, interaction: Interaction, federatedQuery: URLSearchParams, position: Position): Promise<Answered | Failure> {
  const { source } = position;
  const query = sourceQuery(federatedQuery, source, servedSources(ctx));
  if (query === undefined) return { page: { source, entries: [], pageLink: '', nextLink: null, skipped: 0, total: 0 }, asked: false };
  return fetchSourcePage(ctx, req, caller, interaction, query, position, undefined);
}
