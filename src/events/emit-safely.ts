/**
 * Emitting through a dispatcher that may not keep its "never throws" promise.
 * @module
 */
import { errorMessage } from './handler-failure.js';
import type { EventDispatcher, EventPayload } from './types.js';

/**
 * Sends an event through `dispatcher` (nothing when it is `null` or `undefined`). A user's dispatcher
 * may break the {@link EventDispatcher} contract: what its `emit` throws, or a promise it returns that
 * rejects, is written to stderr as one JSON line (`event dispatcher failed`, the event name and the
 * error's message, never the payload) and goes no further. So an event bus that is down never turns a
 * FHIR write that was done, a CDS answer or a SOAP answer into a failure (a caller would retry a create
 * that succeeded), and never crashes the process with an unhandled rejection.
 */
export function emitSafely(dispatcher: EventDispatcher | null | undefined, eventName: string, payload: EventPayload): void {
  if (dispatcher === null || dispatcher === undefined) return;
  try {
    const result: unknown = dispatcher.emit(eventName, payload);
    // A non-promise settles at once; a promise that rejects is reported instead of left unhandled.
    if (result !== undefined) Promise.resolve(result).catch((error: unknown) => report(eventName, error));
  } catch (error) {
    report(eventName, error);
  }
}

function report(eventName: string, error: unknown): void {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'event dispatcher failed', event: eventName, error: errorMessage(error) })}\n`);
}
