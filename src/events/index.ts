/**
 * Events for auditing and automation: the {@link EventDispatcher} interface, the in-process
 * {@link LocalEventDispatcher} and the process-wide default {@link localHandler}.
 * @module
 */
export type { EventDispatcher, EventHandler, EventPair, EventPayload, Unregister } from './types.js';
export { LocalEventDispatcher, type LocalEventDispatcherOptions, type RegisterWrapper } from './local-dispatcher.js';
export { localHandler } from './local-handler.js';
export { logToStderr, type HandlerFailure, type HandlerFailureLogger } from './handler-failure.js';
export { emitSafely } from './emit-safely.js';
