/**
 * The request the facade sends upstream for an allowed interaction: the path under the source's base,
 * the query (held to the caller's compartment), the headers FHIR R4 REST defines (the caller's
 * `Authorization` never), the body with the facade's own URLs moved back to the upstream base.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import { FhirgateError } from '../errors.js';
import type { FHIRExchangeRequest } from '../gateway/index.js';
import { compartmentParam } from './compartment.js';
import type { Interaction } from './interaction.js';
import type { BaseRewriter } from './url-rewrite.js';

/** The caller's headers that go up (besides `content-type` with a body); `accept` is always FHIR JSON. */
const PASSED = ['prefer', 'if-match', 'if-none-match', 'if-none-exist', 'if-modified-since'] as const;

/** An `Accept` the facade can answer: JSON, anything, or nothing said. */
const JSON_ACCEPT = /json|\*\/\*|^\s*$/i;

/** The query parameters the facade keeps for itself. */
export const PAGE_TOKEN_PARAM = '_page_token';

/**
 * Refuses what the facade cannot answer in JSON: an `Accept` or `_format` that asks for XML or another
 * format (`ERR_BAD_REQUEST` with status 406; the facade rewrites URLs by structure, in JSON only).
 */
export function checkFormat(headers: IncomingHttpHeaders, query: URLSearchParams): void {
  const accept = headers.accept;
  const format = query.size === 0 ? null : query.get('_format');
  if ((accept !== undefined && !JSON_ACCEPT.test(accept)) || (format !== null && !/json/i.test(format))) {
    throw new FhirgateError('ERR_BAD_REQUEST', 'the facade answers FHIR JSON only (Accept: application/fhir+json)', { status: 406 });
  }
}

/**
 * The upstream request for `interaction`: `segments` are the path under the source's base, `query`
 * the caller's; with a compartment the search is constrained to it before it goes up.
 */
export function upstreamRequest(
  method: FHIRExchangeRequest['method'],
  segments: readonly string[],
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
  body: { readonly text: string; readonly contentType: string } | undefined,
  interaction: Interaction,
  compartment: string | undefined,
  rewriter: BaseRewriter,
): FHIRExchangeRequest {
  let text = body?.text;
  const searching = interaction.name === 'search-type' || interaction.name === 'search-system';
  const bound = compartment !== undefined && searching && interaction.type !== undefined;
  // The caller's query is copied only when something is taken out of it or added to it.
  const q = bound || query.has(PAGE_TOKEN_PARAM) || query.has('_format') ? new URLSearchParams(query) : query;
  if (q !== query) {
    q.delete(PAGE_TOKEN_PARAM);
    q.delete('_format');
  }
  // A search form body is the query's twin: the facade's own parameters are taken out of it too.
  const form = searching && method === 'POST' && text !== undefined && /x-www-form-urlencoded/i.test(body!.contentType) ? new URLSearchParams(text) : undefined;
  if (form !== undefined) {
    form.delete(PAGE_TOKEN_PARAM);
    form.delete('_format');
  }
  if (bound) {
    const param = compartmentParam(interaction.type)!;
    (form ?? q).append(param, param === '_id' ? compartment : `Patient/${compartment}`);
  }
  if (form !== undefined) text = form.toString();
  if (text !== undefined && /json/i.test(body!.contentType)) text = JSON.stringify(rewriter.resourceToUpstream(JSON.parse(text)));
  const passed: Record<string, string> = { accept: 'application/fhir+json' };
  for (const name of PASSED) {
    const value = headers[name];
    if (typeof value === 'string') passed[name] = value;
  }
  if (body !== undefined) passed['content-type'] = body.contentType;
  const search = q.size === 0 ? '' : q.toString();
  // Concatenated, not `map(encodeURIComponent).join('/')`: the two array builtins were most of this function in a `perf` profile of the read.
  let path = segments.length === 0 ? '' : encodeURIComponent(segments[0]!);
  for (let i = 1; i < segments.length; i++) path += `/${encodeURIComponent(segments[i]!)}`;
  if (search !== '') path += `?${search}`;
  return { method, path, headers: passed, body: text, resourceType: interaction.type, operation: interaction.name };
}
