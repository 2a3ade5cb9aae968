/**
 * What both gateway variants share: the table of transform and aggregate handlers, the event
 * dispatcher, and the HTTP face built from them.
 * @module
 */
import { emitSafely, LocalEventDispatcher, localHandler } from '../events/index.js';
import type { EventDispatcher, EventPayload } from '../events/types.js';
import type { ResourceType } from '../fhir/index.js';
import type { Mountable } from '../mount/index.js';
import { gatewayMountable, HandlerRegistry } from './handlers/index.js';
import type { AggregateHandler, TransformHandler } from './handlers/index.js';

/**
 * The event settings a gateway was built with (already validated).
 *
 * @example
 * ```ts
 * const events: HandlerHostEvents = { events: true, dispatcher: undefined }; // the process-wide localHandler
 * ```
 */
export interface HandlerHostEvents {
  /** `false`: the gateway stays silent whatever `useEvents` is given. */
  readonly events: boolean;
  /** Where events go; `undefined` for the process-wide `localHandler`. */
  readonly dispatcher: EventDispatcher | undefined;
}

/**
 * What a gateway variant adds to its HTTP face.
 *
 * @example
 * ```ts
 * this.mountable({ className: 'FHIRGateway', sourceNames: () => this.sourceNames, poolStatus: () => null, close: async () => this.close() });
 * ```
 */
export interface HandlerHostFace {
  readonly className: string;
  sourceNames(): string[];
  poolStatus(): Record<string, unknown> | null;
  close(): Promise<void>;
}

/**
 * The base of `AsyncFHIRGateway` and `FHIRGateway`: handler registration, event routing and the
 * mountable face. Not exported from the package.
 *
 * @example
 * ```ts
 * class MyGateway extends HandlerHost {
 *   constructor() { super({ events: true, dispatcher: undefined }); }
 *   [MOUNT]() { return this.mountable({ className: 'MyGateway', sourceNames: () => [], poolStatus: () => null, close: async () => {} }); }
 * }
 * ```
 */
export abstract class HandlerHost {
  readonly #registry = new HandlerRegistry();
  readonly #eventsAllowed: boolean;
  #dispatcher: EventDispatcher | null;

  constructor(events: HandlerHostEvents) {
    this.#eventsAllowed = events.events;
    this.#dispatcher = events.events ? (events.dispatcher ?? localHandler) : null;
  }

  /** Registers the transform handler of `type` and returns it. */
  transform<T extends ResourceType>(type: T, handler: TransformHandler<T>): TransformHandler<T>;
  /** Returns a wrapper that registers the handler it is applied to. */
  transform<T extends ResourceType>(type: T): <H extends TransformHandler<T>>(handler: H) => H;
  /**
   * Transform handlers become `GET <prefix>/transform/<type>/<id>` when the gateway is mounted. On a
   * `FHIRGateway` they run on the host's thread and block it while it waits for upstream servers.
   *
   * @example
   * ```ts
   * gw.transform('Patient', async (id, source) => ({ ...(await gw.read('Patient', id, source)), active: true }));
   * ```
   */
  transform(type: ResourceType, handler?: TransformHandler): unknown {
    return arguments.length < 2 ? this.#registry.transform(type) : this.#registry.transform(type, handler as TransformHandler);
  }

  /** Registers the aggregate handler of `type` and returns it. */
  aggregate<H extends AggregateHandler>(type: ResourceType, handler: H): H;
  /** Returns a wrapper that registers the handler it is applied to. */
  aggregate(type: ResourceType): <H extends AggregateHandler>(handler: H) => H;
  /**
   * Aggregate handlers become `GET <prefix>/aggregate/<type>?patient_id=…&sources=…` when mounted. On a
   * `FHIRGateway` they run on the host's thread and block it while it waits for upstream servers.
   *
   * @example
   * ```ts
   * gw.aggregate('Observation', (patientId, sources) => aggregateSources(gw, { resourceType: 'Observation', params: { patient: patientId }, sources: sources ?? gw.sourceNames }));
   * ```
   */
  aggregate(type: ResourceType, handler?: AggregateHandler): unknown {
    return arguments.length < 2 ? this.#registry.aggregate(type) : this.#registry.aggregate(type, handler as AggregateHandler);
  }

  /**
   * Sets where events go (the host calls it when mounting); `null` turns them off. A gateway built with
   * `events: false` stays silent.
   *
   * @example
   * ```ts
   * gw.useEvents(new LocalEventDispatcher());
   * ```
   */
  useEvents(dispatcher: EventDispatcher | null): void {
    if (dispatcher !== null && typeof dispatcher?.emit !== 'function') throw new TypeError('dispatcher must be an EventDispatcher or null');
    if (this.#eventsAllowed) this.#dispatcher = dispatcher;
  }

  /**
   * False when an event named `eventName` would reach nobody: events are off, or the dispatcher is a
   * `LocalEventDispatcher` with no handler matching it. An external dispatcher always gets the event.
   * Lets a caller skip building the payload.
   */
  protected wantsEvent(eventName: string): boolean {
    const dispatcher = this.#dispatcher;
    return dispatcher !== null && (!(dispatcher instanceof LocalEventDispatcher) || dispatcher.hasHandlers(eventName));
  }

  /** Sends an event through the current dispatcher; nothing when events are off. */
  protected emitEvent(eventName: string, payload: EventPayload): void {
    emitSafely(this.#dispatcher, eventName, payload);
  }

  /** The face for `createServiceAPI().registerGateway()`, from the variant's own facts. */
  protected mountable(face: HandlerHostFace): Mountable {
    return gatewayMountable({
      className: face.className,
      registry: this.#registry,
      sourceNames: () => face.sourceNames(),
      poolStatus: () => face.poolStatus(),
      emit: (name: string, payload: EventPayload) => this.emitEvent(name, payload),
      useEvents: (dispatcher: EventDispatcher | null) => this.useEvents(dispatcher),
      eventsEnabled: () => this.#dispatcher !== null,
      close: () => face.close(),
    });
  }
}
