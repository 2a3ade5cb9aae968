/**
 * Events for auditing and automation: the {@link EventDispatcher} interface, the in-process
 * {@link LocalEventDispatcher} and the process-wide default {@link localHandler}.
 * @module
 */
export type { EventDispatcher, EventHandler, EventPair, EventPayload, Unregister } from './types.js';
export { LocalEventDispatcher } from './local-dispatcher.js';
export { localHandler } from './local-handler.js';
