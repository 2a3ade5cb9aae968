/**
 * The trace of the work in progress, carried through `await`s and callbacks by one `AsyncLocalStorage`:
 * the host sets it per request, the transport reads it for each outgoing call, so that a user's handler
 * calling the gateway continues its request's trace without passing anything.
 *
 * Why one scope per request, entered by the host around routing and the endpoint (issue 38 item 2, CPU
 * profiles and paired A/B of the host with its features at 256 connections):
 * - On Node 20 `AsyncLocalStorage` runs on `async_hooks`: the first `run` anywhere turns on an init hook
 *   for every async resource and promise of the process for good (the profile: `emitInitNative`,
 *   `_propagate`, `lookupPublicResource` under each `nextTick`, socket write and timer, about 5 µs of
 *   JavaScript a request plus the native side). The per-request `run` itself is the cheap part: with the
 *   hooks on from the start and no `run` per request, the CPU per request stayed within a few per cent
 *   of the host as it is. So entering the store only around user code (a transform handler, a custom
 *   route), or carrying the trace explicitly through the gateway's own routes, saves nothing as soon as
 *   one such route runs, and a hook that is never turned on cannot be had while user code may call the
 *   gateway after an `await`: the trace must reach that call implicitly. On Node 20 this is the floor of
 *   implicit propagation; a Fastify app that gives its handlers the same (an `onRequest` hook with
 *   `AsyncLocalStorage.run`, as `@fastify/request-context` does) pays it too.
 * - On Node 24 `AsyncLocalStorage` runs on `AsyncContextFrame`: no hook, and a `run` is a frame swap
 *   (`AsyncContextFrame` under 1 µs a request in the profile).
 * - Fewer readers, not fewer scopes: a gateway event nobody receives no longer looks the trace up
 *   (`GatewayEvents.emit`).
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
