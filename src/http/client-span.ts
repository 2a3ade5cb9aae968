/**
 * The OpenTelemetry client span of one try (HTTP semantic conventions): started when the work that sends
 * it has a tracer, its ids the `traceparent` the try carries, ended with the answer's status or the
 * try's `ERR_` code. The URL it records never holds a query value (search values may be patient data,
 * a signed link may hold a token) nor credentials.
 * @module
 */
import type { TraceContext } from '../lib/trace-context.js';
import { endSpanWithError, SPAN_KIND, startSpan, type SpanLike, type StartedSpan, type TracerLike } from '../lib/tracer.js';
import type { HTTPTarget } from './request-options.js';

/** What stands for every query value in `url.full`, as OpenTelemetry's own instrumentation writes it. */
const REDACTED = 'REDACTED';

/** Starts with `tracer` the client span of a try of `method` to `target` under `parent`, try number `resends + 1` of its request. */
export function startClientSpan(tracer: TracerLike, parent: TraceContext, method: string, target: HTTPTarget, resends: number): StartedSpan {
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
  if (status !== undefined) span.setAttribute('http.response.status_code', status);
  if (errorCode !== undefined) endSpanWithError(span, errorCode);
  else if (status !== undefined && status >= 400) endSpanWithError(span, String(status));
  else span.end();
}

/** `?a=REDACTED&b=REDACTED`: the parameter names of a query, every value replaced. */
function redactedQuery(search: string): string {
  if (search === '') return '';
  const names: string[] = [];
  for (const name of new URLSearchParams(search).keys()) names.push(`${encodeURIComponent(name)}=${REDACTED}`);
  return `?${names.join('&')}`;
}
