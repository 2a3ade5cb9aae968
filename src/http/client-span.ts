/**
 * The OpenTelemetry client span of one try (HTTP semantic conventions): started when the work that sends
 * it has a tracer, its ids the `traceparent` the try carries, ended with the answer's status or the
 * try's `ERR_` code. The URL it records never holds a query value (search values may be patient data,
 * a signed link may hold a token) nor credentials.
 * @module
 */
import type { TraceContext } from '../lib/trace-context.js';
import { endSpanWithError, isRecording, SPAN_KIND, startSpan, type SpanLike, type SpanTrace, type TracerLike } from '../lib/tracer.js';
import type { HTTPTarget } from './request-options.js';

/** What stands for every query value in `url.full`, as OpenTelemetry's own instrumentation writes it. */
const REDACTED = 'REDACTED';

/** Starts with `tracer` the client span of a try of `method` to `target` under `parent`, try number `resends + 1` of its request. */
export function startClientSpan(tracer: TracerLike, parent: TraceContext, method: string, target: HTTPTarget, resends: number): SpanTrace {
  const hostname = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
  const attributes: Record<string, string | number> = {
    'http.request.method': method,
    'server.address': hostname,
    'server.port': target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port),
    'url.full': `${target.origin}${target.pathname}${redactedQuery(target.search)}`,
  };
  if (resends > 0) attributes['http.resend_count'] = resends;
  return startSpan(tracer, method, SPAN_KIND.client, parent, attributes);
}

/** Ends a client span: the status (an error from 400 on, its `error.type` the status), or the try's error code. */
export function endClientSpan(span: SpanLike, status: number | undefined, errorCode: string | undefined): void {
  if (!isRecording(span)) return span.end();
  if (status !== undefined) span.setAttribute('http.response.status_code', status);
  if (errorCode !== undefined) endSpanWithError(span, errorCode);
  else if (status !== undefined && status >= 400) endSpanWithError(span, String(status));
  else span.end();
}

/** `?a=REDACTED&b=REDACTED`: the parameter names of a query, every value replaced. */
function redactedQuery(search: string): string {
  if (search === '') return '';
  let out = '';
  // Names without `%` or `+` read as they are written (the common case: no URLSearchParams to build).
  if (!ENCODED.test(search)) {
    for (const pair of search.slice(1).split('&')) if (pair !== '') out += `&${encodeURIComponent(nameOf(pair))}=${REDACTED}`;
  } else for (const name of new URLSearchParams(search).keys()) out += `&${encodeURIComponent(name)}=${REDACTED}`;
  return `?${out.slice(1)}`;
}

/** A `%` or a `+` in a query: its names must be decoded as URLSearchParams decodes them. */
const ENCODED = /[%+]/;

/** The name of a `name=value` pair (all of it when it has no `=`). */
function nameOf(pair: string): string {
  const eq = pair.indexOf('=');
  return eq === -1 ? pair : pair.slice(0, eq);
}
