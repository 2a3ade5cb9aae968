/**
 * An event dispatcher that only collects: the worker's `AsyncFHIRGateway` emits into it, and the
 * collected events travel back with each answer to be emitted on the calling thread.
 * @module
 */
import type { EventDispatcher, EventPayload } from '../../events/types.js';

/** One collected event: its name and payload. */
export type CollectedEvent = [eventName: string, payload: EventPayload];

/** Keeps every emitted event until {@link take} hands them over. */
export class CollectingDispatcher implements EventDispatcher {
  #events: CollectedEvent[] = [];

  /** Keeps a copy of the event. */
  emit(eventName: string, payload: EventPayload): void {
    this.#events.push([eventName, { ...payload }]);
  }

  /** Handlers belong on the calling thread's dispatcher; registering here is a no-op. */
  register(): () => void {
    return () => {};
  }

  /** Nothing runs here, so there is nothing to wait for. */
  async drain(): Promise<void> {}

  /** The events collected since the last call, oldest first; the list starts over. */
  take(): CollectedEvent[] {
    const taken = this.#events;
    this.#events = [];
    return taken;
  }
}
