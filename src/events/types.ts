/**
 * The shapes every event dispatcher shares. Components (gateways, CDS Hooks, NoteReader) emit through an
 * {@link EventDispatcher}; the default is the process-wide `localHandler`, a `LocalEventDispatcher`.
 * @module
 */

/** A flat map of event facts (`resource_id`, `resource_type`, `source`, ...). Never a secret or token. */
export type EventPayload = Record<string, string | number | boolean | null | undefined>;

/** What a handler receives: the pair `[eventName, payload]`. */
export type EventPair = readonly [eventName: string, payload: EventPayload];

/** An event handler; it may be async. What it throws or rejects with is logged, never propagated. */
export type EventHandler = (event: EventPair) => void | Promise<void>;

/** Removes the handler it was returned for. Calling it twice is harmless. */
export type Unregister = () => void;

/**
 * Anything events can be sent through. Implement it to put an external bus (Kafka, NATS, a queue) in
 * place of the local dispatcher.
 *
 * @example
 * ```ts
 * const bus: EventDispatcher = {
 *   emit: (name, payload) => void fetch('https://bus.example.org/events', { method: 'POST', body: JSON.stringify({ name, payload }) }),
 *   register: () => () => {},
 *   drain: async () => {},
 * };
 * const gw = new AsyncFHIRGateway({ dispatcher: bus });
 * ```
 */
export interface EventDispatcher {
  /** Sends an event. Fire-and-forget: it never throws and never waits for handlers. */
  emit(eventName: string, payload: EventPayload): void;
  /** Registers a handler for an exact name or a trailing-`*` pattern (`cdshooks.*`, `*`). */
  register(pattern: string, handler: EventHandler): Unregister;
  /** Resolves once every handler that is running has settled (for graceful shutdown). */
  drain(): Promise<void>;
  /**
   * Optional delivery counts (`sent`, `retried`, `dropped`, `queued`, ...), shown under `events` in
   * `/gateway/status` and in `/metrics`. Numbers only; never an event or a payload.
   */
  status?(): Record<string, number>;
}
