/**
 * The trace of the work in progress, carried through `await`s and callbacks by one `AsyncLocalStorage`:
 * the host sets it per request, the transport reads it for each outgoing call, so that a user's handler
 * calling the gateway continues its request's trace without passing anything.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceContext } from './trace-context.js';

const scope = new AsyncLocalStorage<TraceContext>();

/** The trace context of the request (or other work) this code runs for, if any. */
export function currentTrace(): TraceContext | undefined {
  return scope.getStore();
}

/** Runs `fn(...args)` with `context` as {@link currentTrace} for it and everything it starts. */
export function runInTrace<A extends unknown[], R>(context: TraceContext, fn: (...args: A) => R, ...args: A): R {
  return scope.run(context, fn, ...args);
}
