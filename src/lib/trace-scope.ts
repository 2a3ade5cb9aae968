/**
 * The trace of the work in progress, carried through `await`s and callbacks by one `AsyncLocalStorage`:
 * the host sets it per request, the transport reads it for each outgoing call, so that a user's handler
 * calling the gateway continues its request's trace without passing anything.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceContext } from './trace-context.js';
import { childSpan, startTrace } from './trace-context.js';

const scope = new AsyncLocalStorage<TraceContext>();

/** The trace context of the request (or other work) this code runs for, if any. */
export function currentTrace(): TraceContext | undefined {
  return scope.getStore();
}

/** Runs `fn(...args)` with `context` as {@link currentTrace} for it and everything it starts. */
export function runInTrace<A extends unknown[], R>(context: TraceContext, fn: (...args: A) => R, ...args: A): R {
  return scope.run(context, fn, ...args);
}

/** Runs `fn` in the current trace, or, outside any, in a new trace of its own. */
export function inTrace<R>(fn: () => R): R {
  return scope.getStore() === undefined ? scope.run(startTrace(), fn) : fn();
}

/**
 * The context of one outgoing call: a new span in the current trace, or, for a call made outside any
 * request, a trace of its own.
 */
export function outgoingTrace(): TraceContext {
  const current = scope.getStore();
  return current === undefined ? startTrace() : childSpan(current);
}
