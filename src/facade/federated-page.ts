/**
 * One source's page for the federated base, and what its failures become: the shared half of a
 * federated search (`federated-search.ts`) and `Patient/$everything` (`patient-everything.ts`). A page
 * is fetched through the source's limits and policy, rewritten, cut to what the caller may see, audited,
 * and its entries tagged with their source (federated ids, `fullUrl` at the federated base, an
 * `alternate` link to the source's base). A source that fails becomes issues named by the source.
 * @module
 */
import { httpStatusOf, isFhirgateError } from '../errors.js';
import { operationOutcome } from '../fhir/index.js';
import type { IssueType } from '../fhir/operation-outcome.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import type { Caller } from './caller.js';
import { accessFacts, servedSources } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';
import { federatedResource } from './federated-id.js';
import type { FederatedView } from './federated-id.js';
import { fhirJSON } from './fhir-answer.js';
import type { SourcePage } from './federated-merge.js';
import type { Interaction } from './interaction.js';
import type { PageState } from './page-token.js';
import { decide } from './policy.js';
import { recordAnswer, requestQuery } from './record-answer.js';
import { facadeAnswer } from './upstream-answer.js';
import { upstreamRequest } from './upstream-request.js';
import { visibility } from './visible-entries.js';

/** The largest `_count` of a federated answer (a merged page holds at most this many entries). */
export const MAX_COUNT = 1000;

/** A source's position in a federated answer (its link, how many entries of that page were used). */
export type Position = PageState['pages'][number];

/** A source's page, and whether the source was asked (a source none of whose ids the query names is not). */
export interface Answered {
  readonly page: SourcePage & { readonly total: number | undefined };
  readonly asked: boolean;
}

/** A source that gave no page: the status it counts as, whether that is the caller's error, and its issues (named by source). */
export interface Failure {
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
export function failedSearch(failures: readonly Failure[], strict: boolean): RouteReply {
  const issues = failures.flatMap((f) => f.issues);
  if (failures.every((f) => f.callersError)) {
    const status = failures[0]!.failure;
    return fhirJSON(failures.every((f) => f.failure === status) ? status : 400, { resourceType: 'OperationOutcome', issue: issues });
  }
  const lead = operationOutcome('error', 'exception', strict ? 'a source failed and all-or-nothing was asked (Prefer: handling=strict)' : 'no source answered the search');
  return fhirJSON(502, { ...lead, issue: [...lead.issue, ...issues] });
}

/** A failure of `source` with one issue of the facade's. */
export function failed(source: string, status: number, callersError: boolean, code: IssueType, why: string): Failure {
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
 * One source's page at `position` (its first page when the link is `''`: `interaction` with `query`, the
 * source's own parameters), rewritten and tagged for the federated base; or why it failed. `hold`: the
 * local patient the answer is held to when the caller's policy holds it to none (`$everything`): the
 * search is constrained to that patient's compartment and what is outside it is dropped.
 */
export async function fetchSourcePage(ctx: FacadeContext, req: RouteRequest, caller: Caller, interaction: Interaction, query: URLSearchParams, position: Position, hold: string | undefined): Promise<Answered | Failure> {
  const { source } = position;
  const sources = servedSources(ctx);
  const decided = decide(caller, source, interaction, query);
  const decision = decided.allowed && decided.compartment === undefined && hold !== undefined ? { ...decided, compartment: hold } : decided;
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
    const segments = interaction.name === 'operation' ? [interaction.type!, interaction.id!, interaction.operation!] : interaction.type === undefined ? [] : [interaction.type];
    const request = upstreamRequest('GET', segments, query, req.headers, undefined, interaction, decision.compartment, rewriter);
    const pageLink = position.link === '' ? request.path : position.link!;
    const res = await ctx.gateway.exchange(source, { ...request, path: pageLink }, { signal: req.connectionSignal });
    const answer = facadeAnswer(res, { source, interaction, compartment: decision.compartment, callerId: caller.id, rewriter, tokens: ctx.tokens, extraHeaders: {}, visible: visibility(caller, decision.compartment, rewriter.bases), merged: true });
    recordAnswer(ctx, req, source, interaction, caller, decision.compartment, answer.reply.status ?? res.status, answer.body, undefined, rewriter);
    if (res.status !== 200) return refused(source, res.status, answer.body);
    if (answer.body === undefined) return failed(source, 502, false, 'exception', 'answered 200 with a body that is not FHIR JSON');
    const entries = ((answer.body?.entry ?? []) as Record<string, unknown>[]).slice(position.skip).map((e) => tag(e, view, `${req.baseUrl}/${ctx.options.federatedName}`));
    const nextLink = answer.upstreamNext ?? null;
    const total = typeof answer.body.total === 'number' ? answer.body.total : undefined;
    return { page: { source, ...(position.type === undefined ? {} : { type: position.type }), entries, pageLink, nextLink, skipped: position.skip, total }, asked: true };
  } catch (error) {
    const status = httpStatusOf(error);
    ctx.audit.record(accessFacts(ctx, req, source, interaction, caller), { outcome: 8, outcomeDesc: `source failed: ${isFhirgateError(error) ? error.code : 'error'}` });
    return failed(source, status >= 500 ? status : 502, false, status === 504 ? 'timeout' : 'exception', `failed (${status}${isFhirgateError(error) ? ` ${error.code}` : ''})`);
  } finally {
    slot.release();
  }
}

/**
 * An entry as the federated base shows it, changed in place (the page's own, parsed from the source's
 * answer): its resource federated (see `federatedResource`), `fullUrl` at the federated base (at the
 * source's base when its id cannot be federated), and an `alternate` link to the resource at its source's
 * base, where it is written.
 */
function tag(entry: Record<string, unknown>, view: FederatedView, federatedBase: string): Record<string, unknown> {
  const resource = entry.resource as Record<string, unknown> | undefined;
  if (resource === undefined) return entry;
  const ownId = resource.id;
  const shown = federatedResource(resource, view);
  entry.resource = shown;
  if (typeof ownId !== 'string') return entry;
  const type = String(shown.resourceType);
  const atSource = `${view.sourceBase}/${type}/${ownId}`;
  const links = Array.isArray(entry.link) ? (entry.link as unknown[]) : [];
  entry.fullUrl = shown.id === ownId ? atSource : `${federatedBase}/${type}/${String(shown.id)}`;
  entry.link = [...links, { relation: 'alternate', url: atSource }];
  return entry;
}
