/**
 * An event dispatcher that only collects: the worker's `AsyncFHIRGateway` emits into it, and the
 * collected events travel back with each answer to be emitted on the calling thread.
 * @module
 */
import type { EventDispatcher, EventPayload } from '../../events/types.js';

/**
 * One collected event: its name and payload.
 *
 * @example
 * ```ts
 * const event: CollectedEvent = ['fhir.patient.read', { resource_id: '123', source: 'epic' }];
 * ```
 */
export type CollectedEvent = [eventName: string, payload: EventPayload];

/**
 * Keeps every emitted event until {@link take} hands them over.
 *
 * @example
 * ```ts
 * const events = new CollectingDispatcher();
 * const gw = new AsyncFHIRGateway({ dispatcher: events });
 * await gw.read('Patient', '123');
 * events.take(); // [['fhir.patient.read', { resource_id: '123', ... }]]
 * ```
 */
export class CollectingDispatcher implements EventDispatcher {
  #events: CollectedEvent[] = [];

  /**
   * Keeps a copy of the event.
   *
   * @example
   * ```ts
   * events.emit('fhir.patient.read', { resource_id: '123' });
   * ```
   */
  emit(eventName: string, payload: EventPayload): void {
    this.#events.push([eventName, { ...payload }]);
  }

  /**
   * Handlers belong on the calling thread's dispatcher; registering here is a no-op.
   *
   * @example
   * ```ts
   * events.register()(); // nothing registered, nothing to undo
   * ```
   */
  register(): () => void {
    return () => {};
  }

  /**
   * Nothing runs here, so there is nothing to wait for.
   *
   * @example
   * ```ts
   * await events.drain();
   * ```
   */
  async drain(): Promise<void> {}

  /**
   * The events collected since the last call, oldest first; the list starts over.
   *
   * @example
   * ```ts
   * port.postMessage({ id, ok: true, value, extra: events.take() });
   * ```
   */
  take(): CollectedEvent[] {
    const taken = this.#events;
    this.#events = [];
    return taken;
  }
}
