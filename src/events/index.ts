/**
 * Events for auditing and automation: the {@link EventDispatcher} interface, the in-process
 * {@link LocalEventDispatcher} and the process-wide default {@link localHandler}, and
 * {@link CloudEventsDispatcher} for an HTTP sink.
 * @module
 */
export type { EventDispatcher, EventHandler, EventPair, EventPayload, Unregister } from './types.js';
export { LocalEventDispatcher, type LocalEventDispatcherOptions, type RegisterWrapper } from './local-dispatcher.js';
export { localHandler } from './local-handler.js';
export { logToStderr, type HandlerFailure, type HandlerFailureLogger } from './handler-failure.js';
export { emitSafely } from './emit-safely.js';
export { CloudEventsDispatcher, type CloudEventsDispatcherOptions, type CloudEventsMode } from './cloud-events-dispatcher.js';
export { QueuedDispatcher, type QueuedDispatcherOptions, type QueueShape } from './queued-dispatcher.js';
export { cloudEvent, type CloudEvent } from './cloud-event.js';
export type { DeliveryCounts, DeliveryVerdict } from './delivery-queue.js';
