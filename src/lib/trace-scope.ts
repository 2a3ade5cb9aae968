/**
 * The trace of the work in progress, carried through `await`s and callbacks by one `AsyncLocalStorage`:
 * the host sets it per request, the transport reads it for each outgoing call, so that a user's handler
 * calling the gateway continues its request's trace without passing anything.
 *
 * Why one scope per request, entered by the host around routing and the endpoint (issue 38 item 2: CPU
 * profiles and paired A/B rounds of the host with its features at 256 connections, CPU per request):
 * - On Node 20 `AsyncLocalStorage` runs on `async_hooks`: the first `run` anywhere turns on an init hook
 *   for every async resource and promise of the process for good (`emitInitNative`, `_propagate`,
 *   `lookupPublicResource` under each `nextTick`, socket write and timer: about 5 µs of JavaScript a
 *   request in the profile). With the hooks on and no `run` per request the host cost 1.05× the CPU of
 *   no `AsyncLocalStorage` at all (5 pairs, 0.92–1.24×): that part is the floor of implicit propagation,
 *   which a user's handler calling the gateway after an `await` needs, and which a Fastify app giving its
 *   handlers the same (`AsyncLocalStorage.run` in an `onRequest` hook, as `@fastify/request-context`
 *   does) pays too. The rest (1.09×, 5 pairs, 1.05–1.20×) came mostly from what read the scope, not the
 *   `run`: a gateway event nobody receives looked the trace up and copied its payload to add `trace_id`;
 *   `GatewayEvents.emit` now drops such an event first (1.15× less CPU per request, 5 pairs, 1.01–1.20×).
 *   Entering the store only around user code would leave the hooks on as soon as one such route runs.
 * - On Node 24 `AsyncLocalStorage` runs on `AsyncContextFrame`: no hook, and the per-request `run` is a
 *   frame swap (`AsyncContextFrame` under 1 µs a request in the profile; 1.04× the CPU of no scope,
 *   5 pairs, 0.93–1.16×).
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
