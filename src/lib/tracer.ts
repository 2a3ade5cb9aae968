/**
 * OpenTelemetry without a dependency: the few parts of the OpenTelemetry API's `Tracer` and `Span` that
 * fhirgate calls, typed structurally so that nothing of `@opentelemetry/*` is imported, and the one
 * function that starts a span under a {@link TraceContext}. A user hands in `trace.getTracer('fhirgate')`
 * from their own `@opentelemetry/api`; its SDK then makes the ids, samples and exports.
 * @module
 */
import type { TraceContext } from './trace-context.js';

/** `SpanKind` of the OpenTelemetry API. */
export const SPAN_KIND = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 } as const;
/** `SpanStatusCode.ERROR` of the OpenTelemetry API. */
const STATUS_ERROR = 2;

/** An attribute value as the OpenTelemetry API takes it. */
export type SpanAttributeValue = string | number | boolean;

/** The parts of an OpenTelemetry API `Span` that fhirgate uses. */
export interface SpanLike {
  spanContext(): { traceId: string; spanId: string; traceFlags: number };
  setAttribute(key: string, value: SpanAttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  updateName(name: string): unknown;
  end(): void;
}

/** The parts of an OpenTelemetry API `Context` that a tracer reads its parent span from. */
export interface ContextLike {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): ContextLike;
  deleteValue(key: symbol): ContextLike;
}

/**
 * An OpenTelemetry API `Tracer` (`trace.getTracer('fhirgate')` of `@opentelemetry/api`), or anything with
 * the same `startSpan`.
 */
export interface TracerLike {
  startSpan(name: string, options?: { kind?: number; attributes?: Record<string, SpanAttributeValue> }, context?: ContextLike): SpanLike;
}

/** The key the OpenTelemetry API keeps a context's span under (its `createContextKey` is `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** A context that holds one parent span, as the API's `trace.setSpan(ROOT_CONTEXT, span)` would. */
class ParentContext implements ContextLike {
  readonly #values: Map<symbol, unknown>;
  constructor(values: Map<symbol, unknown>) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): ContextLike {
    return new ParentContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): ContextLike {
    const values = new Map(this.#values);
    values.delete(key);
    return new ParentContext(values);
  }
}

/** A caller's span, known only by its ids (a `traceparent` that came in): what the API calls a remote span context. */
function remoteSpan(parent: TraceContext): SpanLike {
  const context = { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.flags, isRemote: true };
  const ignore = (): undefined => undefined;
  return { spanContext: () => context, setAttribute: ignore, setStatus: ignore, updateName: ignore, end: ignore };
}

/** A span that was started, and the trace context of the work it covers. */
export interface StartedSpan {
  readonly span: SpanLike;
  readonly context: TraceContext;
}

/**
 * Starts span `name` of `kind` with `parent` as its parent (its own span when it has one, else the
 * caller's ids as a remote parent; none: a new trace) and returns it with the trace context of the work
 * it covers: the span's ids, the parent's `tracestate`, and the span itself (with `tracer`) as the parent
 * of what that work starts.
 */
export function startSpan(tracer: TracerLike, name: string, kind: number, parent: TraceContext | undefined, attributes: Record<string, SpanAttributeValue>): StartedSpan {
  const values = new Map<symbol, unknown>();
  if (parent !== undefined) values.set(SPAN_KEY, parent.span ?? remoteSpan(parent));
  const span = tracer.startSpan(name, { kind, attributes }, new ParentContext(values));
  const ids = span.spanContext();
  return { span, context: { traceId: ids.traceId, spanId: ids.spanId, flags: ids.traceFlags & 1, state: parent?.state, span, tracer } };
}

/**
 * Ends `span` as failed: `error.type` is the error's `ERR_` code (or `fallback`, such as the status
 * code), and the status ERROR with the error's message.
 */
export function endSpanWithError(span: SpanLike, code: string, message?: string): void {
  span.setAttribute('error.type', code);
  span.setStatus(message === undefined ? { code: STATUS_ERROR } : { code: STATUS_ERROR, message });
  span.end();
}

/** Checks a `tracer` option: `undefined` stays `undefined`, else a `TypeError` unless it has a `startSpan` method. */
export function tracerOption(value: unknown, name: string): TracerLike | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || typeof (value as Partial<TracerLike>).startSpan !== 'function') {
    throw new TypeError(`${name} must be an OpenTelemetry Tracer (an object with a startSpan method)`);
  }
  return value as TracerLike;
}
