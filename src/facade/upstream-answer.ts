/**
 * What the facade makes of an upstream answer: the body parsed and rewritten (paging links become signed
 * page tokens of the caller; every string and passed-back header under the one rule of `url-rewrite`:
 * URLs under the upstream base move to the facade's, any other mention of its address is redacted), a
 * compartment-bound caller's read of something outside answered 404, the entries of a
 * Bundle the caller may not see dropped (`visible-entries.ts`), and only the headers FHIR clients need passed back.
 * A body that is not FHIR JSON (not a JSON object, a Bundle whose `entry` or `link` is not a list of objects,
 * or an entry whose `resource` is not an object) is the source's failure: 502, never handed on.
 * @module
 */
import type { FHIRExchangeResponse } from '../gateway/index.js';
import { isJSONObject } from '../lib/json-object.js';
import type { RouteReply } from '../mount/index.js';
import { inCompartment } from './compartment.js';
import { FHIR_JSON, fhirJSON, outcome } from './fhir-answer.js';
import type { Interaction } from './interaction.js';
import type { PageState, PageTokens } from './page-token.js';
import { FACADE_SECURITY } from './statement-security.js';
import { PAGE_TOKEN_PARAM } from './upstream-request.js';
import type { BaseRewriter } from './url-rewrite.js';
import { visibleEntries } from './visible-entries.js';
import type { Visibility } from './visible-entries.js';

/** The interactions whose Bundle answers are cut to what the caller may see (not a read of a Bundle, not a batch's answer). */
const FILTERED = /^(search|history|operation)/;

/** The paging relations that become page tokens. */
const PAGING = new Set(['next', 'previous', 'prev', 'first', 'last']);

/** The upstream's headers that come back as they are, and those whose URL moves to the facade. */
const PASSED_BACK = ['etag', 'last-modified', 'retry-after', 'x-progress'] as const;
const MOVED_BACK = ['location', 'content-location'] as const;

/** The answer, and what the audit needs of it. */
export interface FacadeAnswer {
  readonly reply: RouteReply;
  /** The body as sent to the caller (parsed JSON), when there is one. */
  readonly body: Record<string, unknown> | undefined;
  /** Of a `merged` answer (see {@link AnswerSetting}): the upstream's own `next` link of a Bundle (`null`: none). */
  readonly upstreamNext?: string | null;
}

/** What {@link facadeAnswer} needs to know. */
export interface AnswerSetting {
  readonly source: string;
  readonly interaction: Interaction;
  readonly compartment: string | undefined;
  readonly callerId: string;
  readonly rewriter: BaseRewriter;
  readonly tokens: PageTokens;
  /** Headers added to the reply (`RateLimit-*`). */
  readonly extraHeaders: Record<string, string>;
  /** What the caller may see of a search, history or operation Bundle (`undefined`: all of it); see `visible-entries.ts`. */
  readonly visible: Visibility | undefined;
  /**
   * True when the federated base merges the body into its own answer: no reply bytes are made, and a
   * Bundle's paging links are dropped, not signed (the upstream's `next` comes back as `upstreamNext`).
   */
  readonly merged?: boolean;
}

/** The facade's reply to an upstream answer. */
export function facadeAnswer(res: FHIRExchangeResponse, s: AnswerSetting): FacadeAnswer {
  const headers: Record<string, string> = { ...s.extraHeaders };
  for (const name of PASSED_BACK) {
    const value = res.headers[name];
    if (value !== undefined) headers[name] = s.rewriter.textToFacade(value);
  }
  for (const name of MOVED_BACK) {
    const value = res.headers[name];
    const moved = value === undefined ? undefined : s.rewriter.toFacade(value);
    if (moved !== undefined) headers[name] = moved;
  }
  if (res.body.length === 0) return { reply: { status: res.status, headers }, body: undefined };
  let parsed: unknown;
  const text = res.body.toString('utf8');
  try {
    parsed = /json/i.test(res.headers['content-type'] ?? 'json') ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!isJSONObject(parsed)) {
    return { reply: outcome(502, 'exception', `source "${s.source}" answered ${res.status} with a body that is not FHIR JSON`, s.extraHeaders), body: undefined };
  }
  let body = parsed;
  if (body.resourceType === 'Bundle' && !wellFormedBundle(body)) {
    return { reply: outcome(502, 'exception', `source "${s.source}" answered ${res.status} with a body that is not FHIR JSON (a Bundle whose entry or link is not a list of objects, or an entry whose resource is not an object)`, s.extraHeaders), body: undefined };
  }
  if (s.compartment !== undefined && res.status < 300 && !withinCompartment(body, s)) {
    const { type, id } = s.interaction;
    return { reply: outcome(404, 'not-found', `${type}/${id} is not known`, s.extraHeaders), body: undefined };
  }
  const upstreamNext = s.merged === true && body.resourceType === 'Bundle' ? nextLinkOf(body) : undefined;
  if (body.resourceType === 'Bundle') body = pagedBundle(body, s);
  if (body.resourceType === 'CapabilityStatement') body = facadeStatement(body, s);
  // Strings that are not the upstream's (page-token links) take the close look whatever the text; a merged
  // answer's links are dropped by the merge, so its strings that are shown are all the upstream's.
  const own = body === parsed || s.merged === true;
  const rewritten = own ? s.rewriter.answerToFacade(body, text) : s.rewriter.mayHoldAddress(text) ? s.rewriter.resourceToFacade(body) : body;
  if (s.merged === true) return { reply: { status: res.status, headers }, body: rewritten, upstreamNext: upstreamNext ?? null };
  // Nothing to rewrite: the upstream's bytes go out as they came.
  if (rewritten === parsed) {
    headers['content-type'] = FHIR_JSON;
    return { reply: { status: res.status, headers, body: res.body }, body };
  }
  return { reply: fhirJSON(res.status, rewritten, headers), body: rewritten };
}

/**
 * True when a Bundle's `entry` and `link` are absent or arrays of objects and each entry's `resource` is absent or
 * an object, as FHIR has them (anything else would break what reads them).
 */
function wellFormedBundle(bundle: Record<string, unknown>): boolean {
  if (!listOfObjects(bundle.entry) || !listOfObjects(bundle.link)) return false;
  return bundle.entry === undefined || (bundle.entry as Record<string, unknown>[]).every((e) => e.resource === undefined || isJSONObject(e.resource));
}

/** True when `value` is absent or an array of objects. */
function listOfObjects(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.every(isJSONObject));
}

/** A compartment-bound read (or instance history) of something outside is as if it did not exist. */
function withinCompartment(body: Record<string, unknown>, s: AnswerSetting): boolean {
  const bases = s.rewriter.bases;
  const { name } = s.interaction;
  if (name === 'read' || name === 'vread') return inCompartment(body, s.compartment!, bases);
  if (name === 'history-instance') return ((body.entry ?? []) as { resource?: unknown }[]).every((e) => e.resource === undefined || inCompartment(e.resource, s.compartment!, bases));
  return true;
}

/** A Bundle with paging links as page tokens, and the entries the caller may not see dropped. */
function pagedBundle(bundle: Record<string, unknown>, s: AnswerSetting): Record<string, unknown> {
  const links = Array.isArray(bundle.link) ? (bundle.link as { relation?: string; url?: string }[]) : [];
  // A loop, not `flatMap`: a federated search pages twice a request (`flatMap`'s arrays were 1 % of its CPU, Node 20).
  const link: { relation: string; url: string }[] = [];
  for (const l of links) {
    if (typeof l.url !== 'string' || typeof l.relation !== 'string') continue;
    if (PAGING.has(l.relation)) {
      if (s.merged === true) continue;
      const state: PageState = { caller: s.callerId, type: s.interaction.type, pages: [{ source: s.source, link: l.url, skip: 0, ...(s.compartment === undefined ? {} : { patient: s.compartment }) }] };
      link.push({ relation: l.relation, url: `${s.rewriter.facadeBase}?${PAGE_TOKEN_PARAM}=${s.tokens.sign(state)}` });
      continue;
    }
    const moved = s.rewriter.toFacade(l.url);
    if (moved !== undefined) link.push({ relation: l.relation, url: moved });
  }
  const paged = { ...bundle, link };
  return s.visible === undefined || !FILTERED.test(s.interaction.name) ? paged : visibleEntries(paged, s.visible);
}

/** The `next` link of a Bundle as its source gave it, `undefined` when it has none. */
function nextLinkOf(bundle: Record<string, unknown>): string | undefined {
  const next = Array.isArray(bundle.link) ? (bundle.link as { relation?: unknown; url?: unknown }[]).find((l) => l?.relation === 'next')?.url : undefined;
  return typeof next === 'string' ? next : undefined;
}

/**
 * A source's CapabilityStatement as the facade serves it: `url` and `implementation.url` at the facade,
 * only the formats the facade speaks (it answers JSON only: XML is 406, an XML patch 415), and the
 * facade's security in place of the source's (its OAuth endpoints are for the gateway, not the caller).
 */
function facadeStatement(body: Record<string, unknown>, s: AnswerSetting): Record<string, unknown> {
  const implementation = (body.implementation ?? {}) as Record<string, unknown>;
  const json = (formats: unknown) => (Array.isArray(formats) ? formats.filter((f): f is string => typeof f === 'string' && /json/i.test(f)) : []);
  const format = json(body.format);
  const patchFormat = json(body.patchFormat);
  const { patchFormat: _dropped, ...kept } = body;
  const rest = Array.isArray(body.rest) ? (body.rest as unknown[]).map((r) => (typeof r === 'object' && r !== null ? { ...r, security: FACADE_SECURITY } : r)) : body.rest;
  return {
    ...kept,
    ...(rest === undefined ? {} : { rest }),
    url: `${s.rewriter.facadeBase}/metadata`,
    format: format.length === 0 ? ['json'] : format,
    ...(patchFormat.length === 0 ? {} : { patchFormat }),
    implementation: { ...implementation, description: implementation.description ?? `fhirgate facade of ${s.source}`, url: s.rewriter.facadeBase },
  };
}
