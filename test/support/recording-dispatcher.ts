/**
 * An event dispatcher that records what is emitted, for asserting which events a component sent.
 * @module
 */
import type { EventDispatcher, EventPayload } from '../../src/events/types.js';

/** A dispatcher plus the `[name, payload]` pairs emitted to it, in order. */
export type RecordingDispatcher = EventDispatcher & { readonly events: [string, EventPayload][] };

/**
 * A dispatcher that keeps every emitted event in `events`; `register` and `drain` do nothing.
 *
 * @example
 * ```ts
 * const dispatcher = recordingDispatcher();
 * const cds = new CDSHooksService({ dispatcher });
 * // ... call a hook
 * assert.equal(dispatcher.events[0]?.[0], 'cdshooks.patient-view');
 * ```
 */
export function recordingDispatcher(): RecordingDispatcher {
  const events: [string, EventPayload][] = [];
  return { events, emit: (name, payload) => void events.push([name, payload]), register: () => () => {}, drain: async () => {} };
}
