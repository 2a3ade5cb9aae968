/**
 * Spans around a piece of asynchronous work (a token fetch, a federated source, an AuditEvent flush, a
 * library call): started under the current trace's span with its tracer, the work run with the new span
 * as its parent, ended when the work settles (`error.type` the `ERR_` code when it fails). Without a
 * tracer in the current trace nothing is started: the work runs as it is.
 * @module
 */
import { isFhirgateError } from '../errors.js';
import { startTrace } from './trace-context.js';
import { currentTrace, runInTrace } from './trace-scope.js';
import { endSpanWithError, SPAN_KIND, startSpan, type SpanAttributeValue, type SpanTrace, type TracerLike } from './tracer.js';

/** The `error.type` of a failure: its `ERR_` code, or OpenTelemetry's `_OTHER` for anything else. */
function errorType(error: unknown): string {
  return isFhirgateError(error) ? error.code : '_OTHER';
}

/**
 * Runs `work` in an internal span `name` of the current trace when that trace has a tracer (the span
 * the parent of what `work` starts), else runs it as it is.
 */
export function inSpan<T>(name: string, attributes: Record<string, SpanAttributeValue>, work: () => Promise<T>): Promise<T> {
  const parent = currentTrace();
  if (parent?.tracer === undefined) return work();
  return around(startSpan(parent.tracer, name, SPAN_KIND.internal, parent, attributes), work);
}

/**
 * Runs `work` as a trace of its own, whatever the current one (work that serves many requests, such as
 * an AuditEvent batch): under a root span `name` with `tracer`, else in new ids.
 */
export function inRootSpan<T>(tracer: TracerLike | undefined, name: string, work: () => Promise<T>): Promise<T> {
  if (tracer === undefined) return runInTrace(startTrace(), work);
  return around(startSpan(tracer, name, SPAN_KIND.internal, undefined, {}), work);
}

/**
 * Runs a gateway call: in the current trace (given the gateway's `tracer` when that trace has none), or,
 * outside any, as a trace of its own (under a root span `fhirgate.call` with a tracer), so that its
 * token fetch, its tries and its event share one trace id.
 */
export function inCallTrace<T>(tracer: TracerLike | undefined, work: () => Promise<T>): Promise<T> {
  const current = currentTrace();
  if (current === undefined) return inRootSpan(tracer, 'fhirgate.call', work);
  if (tracer === undefined || current.tracer !== undefined) return work();
  return runInTrace({ ...current, tracer }, work);
}

/** Runs `work` under `started`'s span and ends the span when the work settles. */
function around<T>(started: SpanTrace, work: () => Promise<T>): Promise<T> {
  let result: Promise<T>;
  try {
    result = runInTrace(started, work);
  } catch (error) {
    endSpanWithError(started.span, errorType(error));
    throw error;
  }
  return result.then(
    (value) => {
      started.span.end();
      return value;
    },
    (error: unknown) => {
      endSpanWithError(started.span, errorType(error));
      throw error;
    },
  );
}
