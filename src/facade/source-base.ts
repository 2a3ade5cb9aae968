/**
 * One source as a FHIR base: a request under `{prefix}/{source}` read as an interaction, its caller
 * identified, the policy decided before anything goes upstream (and a compartment-bound write checked
 * against what it would touch), the limits taken, the exchange made through the gateway, the answer
 * rewritten, and every access (refusals and failures too) audited.
 * @module
 */
import { FhirgateError, httpStatusOf, isFhirgateError } from '../errors.js';
import type { FHIRExchangeRequest } from '../gateway/index.js';
import { MAX_RESOURCE_DEPTH, nestsDeeperThan } from '../lib/json-depth.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { attemptedInteraction, auditRefused } from './audit-refusal.js';
import { bundlePolicy } from './bundle-policy.js';
import type { Caller } from './caller.js';
import { writableInCompartment } from './compartment.js';
import type { FacadeContext } from './facade-context.js';
import { outcome } from './fhir-answer.js';
import type { IssueType } from '../fhir/operation-outcome.js';
import type { Interaction } from './interaction.js';
import { interactionOf } from './interaction.js';
import { bindIdentity } from './identity-binding.js';
import { decide } from './policy.js';
import { rateLimitHeaders } from './rate-limiter.js';
import { accessFacts } from './facade-context.js';
import { recordAnswer } from './record-answer.js';
import { facadeAnswer } from './upstream-answer.js';
import { openPageToken, pageTokenOf, searchParams } from './page-token-route.js';
import { checkFormat, upstreamRequest } from './upstream-request.js';
import { visibility } from './visible-entries.js';
import { targetRefusal } from './write-target.js';

/** The largest request body the facade reads (a transaction Bundle), in bytes. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The extra headers of an answer when no rate applies (read only: answers copy them). */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** What {@link answerSource} is told by the federated base. */
export interface SourceAnswerOptions {
  /** The caller, when the route identified it already (the federated read, to hide the sources it may not use). */
  readonly caller?: Caller;
}

/** The reply to a request under `{prefix}/{source}`; `rest` are the path segments after the source. */
export async function answerSource(ctx: FacadeContext, req: RouteRequest, source: string, rest: readonly string[], options: SourceAnswerOptions = {}): Promise<RouteReply> {
  const method = req.method as FHIRExchangeRequest['method'];
  const query = req.query;
  const found = interactionOf(method, rest, query.size > 0, typeof req.headers['if-none-exist'] === 'string');
  if (found === undefined) {
    const reason = `no FHIR interaction for ${method} ${[source, ...rest].join('/')}`;
    auditRefused(ctx, req, source, `${req.baseUrl}/${source}`, attemptedInteraction(method), 404, reason);
    return outcome(404, 'not-found', reason);
  }
  let interaction: Interaction = found;
  let caller: Caller | undefined;
  const facadeBase = `${req.baseUrl}/${source}`;
  const refuse = (status: number, code: IssueType, reason: string, headers: Record<string, string> = {}, shown = reason): RouteReply => {
    ctx.audit.record(accessFacts(ctx, req, source, interaction, caller, facadeBase), { outcome: status >= 500 ? 8 : 4, outcomeDesc: reason });
    return outcome(status, code, shown, headers);
  };
  try {
    const identified = options.caller ?? ctx.callers.identify(req.headers);
    caller = identified instanceof Promise ? await identified : identified;
  } catch (error) {
    return refuse(401, 'login', `caller not identified: ${(error as Error).message}`, { 'www-authenticate': 'Bearer' }, 'credentials are missing or not valid');
  }
  if (caller.identity !== undefined) caller = await bindIdentity(ctx, req, caller, source);
  let body: { text: string; contentType: string } | undefined;
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
    const contentType = req.headers['content-type'] ?? '';
    if (!/json|x-www-form-urlencoded/i.test(contentType)) return refuse(415, 'not-supported', 'the body must be FHIR JSON (application/fhir+json), JSON Patch or a search form');
    body = { text: (await req.bytes(MAX_BODY_BYTES)).toString('utf8'), contentType };
  }
  // One parameter policy: a `POST …/_search` form body is checked (format, compartment) as its query would be.
  const params = searchParams(query, body);
  try {
    checkFormat(req.headers, params);
  } catch (error) {
    return refuse(406, 'not-supported', (error as Error).message);
  }
  let pageLink: string | undefined;
  try {
    const token = pageTokenOf(params, found.name === 'search-type' || found.name === 'search-system');
    if (token !== undefined) {
      const state = openPageToken(ctx.tokens, token, caller, false, found.type);
      const page = state.pages.find((p) => p.source === source);
      if (typeof page?.link !== 'string' || page.link === '') throw new FhirgateError('ERR_PAGE_TOKEN', 'the page token is for another base');
      pageLink = page.link;
      interaction = { name: state.type === undefined ? 'search-system' : 'search-type', ...(state.type === undefined ? {} : { type: state.type }), conditional: false };
    }
  } catch (error) {
    return refuse(400, 'invalid', isFhirgateError(error) ? error.message : 'the page token is not valid');
  }
  let parsed: Record<string, unknown> | undefined;
  if (body !== undefined && /json/i.test(body.contentType)) {
    // The caller's error, not the source's: refused before anything walks it.
    if (nestsDeeperThan(body.text, MAX_RESOURCE_DEPTH)) return refuse(400, 'invalid', `ERR_BAD_REQUEST: the body nests JSON more than ${MAX_RESOURCE_DEPTH} levels deep`);
    try {
      parsed = JSON.parse(body.text) as Record<string, unknown>;
    } catch {
      return refuse(400, 'invalid', 'the body is not JSON');
    }
  }
  if (interaction.name === 'batch') interaction = { ...interaction, name: parsed?.type === 'transaction' ? 'transaction' : 'batch' };
  const ifNoneExist = req.headers['if-none-exist'];
  const decision = decide(caller, source, interaction, params, { ...(typeof ifNoneExist === 'string' ? { ifNoneExist } : {}), body: parsed !== undefined });
  if (!decision.allowed) {
    const status = decision.status;
    return refuse(status, status === 404 ? 'not-found' : status === 412 ? 'multiple-matches' : 'forbidden', decision.reason, {}, status === 404 ? `${interaction.type ?? 'resource'}/${interaction.id ?? ''} is not known` : decision.reason);
  }
  if (interaction.name === 'batch' || interaction.name === 'transaction') {
    const why = bundlePolicy(caller, source, parsed);
    if (why !== undefined) return refuse(403, 'forbidden', why);
  }
  const compartment = decision.compartment;
  const rewriter = ctx.rewriter(source, facadeBase);
  const bases = rewriter.bases;
  if (compartment !== undefined && (interaction.name === 'create' || interaction.name === 'update') && !writableInCompartment(parsed, compartment, bases)) {
    return refuse(403, 'forbidden', `the ${interaction.type} would be outside the patient compartment: each of its patient references must be Patient/${compartment}`);
  }
  if (compartment !== undefined && interaction.name === 'patch') return refuse(403, 'forbidden', 'patch is not allowed for a compartment-bound caller');
  const taken = ctx.limits.acquire(source, caller);
  const slot = taken instanceof Promise ? await taken : taken;
  if (slot.refused) return refuse(429, 'throttled', slot.reason, rateLimitHeaders(slot.verdict));
  const extraHeaders = slot.verdict === undefined ? NO_HEADERS : rateLimitHeaders(slot.verdict);
  try {
    if (compartment !== undefined && (interaction.name === 'update' || interaction.name === 'delete')) {
      const current = await ctx.gateway.exchange(source, { method: 'GET', path: `${interaction.type}/${interaction.id}`, headers: { accept: 'application/fhir+json' } }, { signal: req.connectionSignal });
      const no = targetRefusal(current, interaction, compartment, bases);
      if (no !== undefined) return refuse(no.status, no.status === 404 ? 'not-found' : no.status === 403 ? 'forbidden' : 'exception', no.reason, extraHeaders, no.shown);
    }
    // A page is the GET of the signed upstream link: nothing of the request (a `_search` form body) goes with it.
    const request = pageLink === undefined ? upstreamRequest(method, rest, query, req.headers, body, interaction, compartment, rewriter) : { ...upstreamRequest('GET', [], new URLSearchParams(), req.headers, undefined, interaction, undefined, rewriter), path: pageLink };
    const res = await ctx.gateway.exchange(source, request, { signal: req.connectionSignal });
    const answer = facadeAnswer(res, { source, interaction, compartment, callerId: caller.id, rewriter, tokens: ctx.tokens, extraHeaders, visible: visibility(caller, compartment, bases) });
    recordAnswer(ctx, req, source, interaction, caller, compartment, answer.reply.status ?? 200, answer.body, answer.reply.headers?.location, rewriter, params === query ? undefined : params);
    return answer.reply;
  } catch (error) {
    const status = httpStatusOf(error);
    const code = isFhirgateError(error) ? error.code : 'ERR_INTERNAL';
    return refuse(status >= 500 ? status : 502, status === 504 ? 'timeout' : 'exception', `source "${source}" failed: ${code}`, extraHeaders);
  } finally {
    slot.release();
  }
}
