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
  /** `false` when the span's sampler dropped it (the API's spans all have it; fhirgate then skips the attributes it would set). */
  isRecording?(): boolean;
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

/**
 * A context that holds at most one parent span, as the API's `trace.setSpan(ROOT_CONTEXT, span)` would:
 * one field, no map (a tracer reads it once or twice per span); a `setValue` or `deleteValue` (which
 * starting a span does not need) copies it into a {@link MapContext}.
 */
class ParentContext implements ContextLike {
  readonly #span: SpanLike | undefined;
  constructor(span: SpanLike | undefined) {
    this.#span = span;
  }
  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.#span : undefined;
  }
  setValue(key: symbol, value: unknown): ContextLike {
    return this.#copy().setValue(key, value);
  }
  deleteValue(key: symbol): ContextLike {
    return this.#copy().deleteValue(key);
  }
  #copy(): MapContext {
    return new MapContext(this.#span === undefined ? new Map() : new Map([[SPAN_KEY, this.#span]]));
  }
}

/** A context derived from a {@link ParentContext}: any values, each change a new copy. */
class MapContext implements ContextLike {
  readonly #values: Map<symbol, unknown>;
  constructor(values: Map<symbol, unknown>) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): ContextLike {
    return new MapContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): ContextLike {
    const values = new Map(this.#values);
    values.delete(key);
    return new MapContext(values);
  }
}

/** The context of a span without a parent (a new trace): one for all, as it never changes. */
const NO_PARENT = new ParentContext(undefined);

/** The ids of a caller's span (a `traceparent` that came in), as the API's `SpanContext` has them. */
interface RemoteIds {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote: true;
}

/** A caller's span, known only by its ids: what the API calls a remote span context, wrapped as a span that records nothing. */
class RemoteSpan implements SpanLike {
  readonly #ids: RemoteIds;
  constructor(parent: TraceContext) {
    this.#ids = { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.flags, isRemote: true };
  }
  spanContext(): RemoteIds {
    return this.#ids;
  }
  setAttribute(): undefined {
    return undefined;
  }
  setStatus(): undefined {
    return undefined;
  }
  updateName(): undefined {
    return undefined;
  }
  isRecording(): boolean {
    return false;
  }
  end(): void {}
}

/** The trace context of a started span: a {@link TraceContext} whose `span` and `tracer` are always there. */
export type SpanTrace = TraceContext & { readonly span: SpanLike; readonly tracer: TracerLike };

/**
 * Starts span `name` of `kind` with `parent` as its parent (its own span when it has one, else the
 * caller's ids as a remote parent; none: a new trace) and returns the trace context of the work it
 * covers: the span's ids, the parent's `tracestate`, and the span itself (with `tracer`) as the parent
 * of what that work starts. `attributes` are those a sampler may read (the conventions ask for them at
 * the start); what is known later is set on the span then.
 */
export function startSpan(tracer: TracerLike, name: string, kind: number, parent: TraceContext | undefined, attributes: Record<string, SpanAttributeValue>): SpanTrace {
  const span = tracer.startSpan(name, { kind, attributes }, parent === undefined ? NO_PARENT : new ParentContext(parent.span ?? new RemoteSpan(parent)));
  const ids = span.spanContext();
  return { traceId: ids.traceId, spanId: ids.spanId, flags: ids.traceFlags & 1, state: parent?.state, span, tracer };
}

/** Whether `span` keeps what is set on it: `false` for a span its sampler dropped (a span without `isRecording` is taken as recording). */
export function isRecording(span: SpanLike): boolean {
  return span.isRecording?.() !== false;
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
