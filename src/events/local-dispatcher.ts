/**
 * The in-process event dispatcher, built on `EventTarget`.
 * @module
 */
import { keysOf, onlyKnownKeys } from '../lib/options.js';
import { logToStderr, type HandlerFailureLogger } from './handler-failure.js';
import { compilePattern, type PatternMatcher } from './pattern.js';
import type { EventDispatcher, EventHandler, EventPair, EventPayload, Unregister } from './types.js';

/** Options of {@link LocalEventDispatcher}. */
export interface LocalEventDispatcherOptions {
  /**
   * Receives every handler that throws or rejects. Default: {@link logToStderr}, one JSON line on stderr
   * with the event name, the pattern and the error message (no stack, no payload).
   */
  logger?: HandlerFailureLogger;
}

/** The keys of {@link LocalEventDispatcherOptions}; any other is refused with the nearest of these. */
export const LOCAL_OPTION_KEYS = keysOf<LocalEventDispatcherOptions>({ logger: true });

/** The `register(pattern)` form: registers the handler it is given and returns that same handler. */
export type RegisterWrapper = <H extends EventHandler>(handler: H) => H;

const EVENT_TYPE = 'fhirgate:event';

/** The one event type dispatched on the inner target; it carries the pair handlers receive. */
class PairEvent extends Event {
  constructor(
    readonly pair: EventPair,
    readonly sequence: number,
  ) {
    super(EVENT_TYPE);
  }
}

interface Registration {
  readonly pattern: string;
  readonly handler: EventHandler;
  readonly matches: PatternMatcher;
  readonly listener: (event: Event) => void;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';

/**
 * Dispatches events to handlers in this process. `emit` calls the matching handlers at once, in the order
 * they were registered, each with the pair `[eventName, payload]` (the payload object as given, not a
 * copy). A handler may be async: its promise is tracked until it settles, and {@link drain} waits for
 * it. A handler that throws or rejects is reported to the `logger` option and affects neither the emitter
 * nor the other handlers; `emit` never throws. A handler registered while an event is being dispatched
 * does not receive that event; one unregistered meanwhile is not called for it if it has not run yet.
 *
 * @example
 * ```ts
 * const events = new LocalEventDispatcher({ logger: (f) => console.warn(f.eventName, f.error) });
 * const off = events.register('fhir.patient.*', async ([name, payload]) => {
 *   audit(name, payload.resource_id);
 * });
 * events.emit('fhir.patient.read', { resource_type: 'Patient', resource_id: '123', source: 'epic' });
 * await events.drain();   // the audit write has finished
 * off();
 * ```
 */
export class LocalEventDispatcher implements EventDispatcher {
  readonly #target = new EventTarget();
  readonly #logger: HandlerFailureLogger;
  readonly #registrations = new Set<Registration>();
  readonly #running = new Set<Promise<void>>();
  #sequence = 0;

  constructor(options: LocalEventDispatcherOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError('LocalEventDispatcher: options must be an object');
    }
    onlyKnownKeys(options, LOCAL_OPTION_KEYS, 'LocalEventDispatcher: options');
    const { logger = logToStderr } = options;
    if (typeof logger !== 'function') throw new TypeError('LocalEventDispatcher: options.logger must be a function');
    this.#logger = logger;
  }

  /**
   * Sends an event to every handler whose pattern matches `eventName`. Returns once the synchronous part
   * of each handler has run; never throws. A name that is not a non-empty string reaches no handler.
   *
   * @example
   * ```ts
   * localHandler.emit('cdshooks.patient-view', { hook_instance: 'd1577c69-dfbe-44ad-ba6d-3e05e953b2ea', cards: 2 });
   * ```
   */
  emit(eventName: string, payload: EventPayload): void {
    if (this.#registrations.size === 0 || typeof eventName !== 'string' || eventName === '') return;
    this.#target.dispatchEvent(new PairEvent(Object.freeze([eventName, payload] as const), this.#sequence));
  }

  /**
   * True when at least one registered handler's pattern matches `eventName`: an emitter may skip building
   * a payload nobody would receive. Not part of {@link EventDispatcher}: external dispatchers always get
   * the event.
   *
   * @example
   * ```ts
   * if (localHandler.hasHandlers('fhir.patient.read')) localHandler.emit('fhir.patient.read', { id: patient.id });
   * ```
   */
  hasHandlers(eventName: string): boolean {
    if (this.#registrations.size === 0 || typeof eventName !== 'string' || eventName === '') return false;
    for (const registration of this.#registrations) if (registration.matches(eventName)) return true;
    return false;
  }

  /**
   * Registers `handler` for events matching `pattern` (an exact name, or text with one trailing `*`:
   * `cdshooks.*`, `*`) and returns the function that unregisters it. Registering the same handler twice
   * makes two registrations, each called and each removed on its own.
   *
   * Without a handler, returns a wrapper that registers the handler it is given and returns that handler
   * unchanged (decorator style); remove such a handler with {@link unregister}.
   *
   * @throws TypeError when `pattern` is invalid (see `compilePattern`) or `handler` is not a function.
   * @example
   * ```ts
   * const off = localHandler.register('fhir.patient.read', ([name, payload]) => console.log(name, payload));
   * off();
   * const trail = localHandler.register('fhir.*')(async ([name, payload]) => audit(name, payload));
   * localHandler.unregister('fhir.*', trail);
   * ```
   */
  register(pattern: string, handler: EventHandler): Unregister;
  register(pattern: string): RegisterWrapper;
  register(pattern: string, handler?: EventHandler): Unregister | RegisterWrapper {
    const matches = compilePattern(pattern);
    if (handler === undefined) {
      return <H extends EventHandler>(h: H): H => {
        this.#add(pattern, matches, h);
        return h;
      };
    }
    return this.#add(pattern, matches, handler);
  }

  /**
   * Removes every registration of `handler` under exactly `pattern`. Returns whether there was one.
   *
   * @example
   * ```ts
   * const seen: string[] = [];
   * const h = localHandler.register('cdshooks.*')(([name]) => { seen.push(name); });
   * localHandler.unregister('cdshooks.*', h);  // true
   * ```
   */
  unregister(pattern: string, handler: EventHandler): boolean {
    let removed = false;
    for (const registration of [...this.#registrations]) {
      if (registration.pattern === pattern && registration.handler === handler) {
        this.#remove(registration);
        removed = true;
      }
    }
    return removed;
  }

  /**
   * Resolves once every handler promise has settled, including those of handlers started while waiting.
   * Never rejects. Use it in graceful shutdown.
   *
   * @example
   * ```ts
   * process.once('SIGTERM', async () => { await app.close(); await localHandler.drain(); });
   * ```
   */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  #add(pattern: string, matches: PatternMatcher, handler: unknown): Unregister {
    if (typeof handler !== 'function') throw new TypeError('LocalEventDispatcher.register: "handler" must be a function');
    const sequence = ++this.#sequence;
    const registration: Registration = {
      pattern,
      handler: handler as EventHandler,
      matches,
      listener: (event) => {
        const { pair, sequence: current } = event as PairEvent;
        if (sequence <= current && matches(pair[0])) this.#call(registration, pair);
      },
    };
    this.#registrations.add(registration);
    this.#target.addEventListener(EVENT_TYPE, registration.listener);
    return () => this.#remove(registration);
  }

  #remove(registration: Registration): void {
    this.#registrations.delete(registration);
    this.#target.removeEventListener(EVENT_TYPE, registration.listener);
  }

  #call(registration: Registration, pair: EventPair): void {
    let result: unknown;
    try {
      result = registration.handler(pair);
    } catch (error) {
      this.#report(registration, pair, error);
      return;
    }
    if (!isThenable(result)) return;
    const settled: Promise<void> = Promise.resolve(result)
      .then(
        () => undefined,
        (error: unknown) => this.#report(registration, pair, error),
      )
      .finally(() => this.#running.delete(settled));
    this.#running.add(settled);
  }

  #report(registration: Registration, pair: EventPair, error: unknown): void {
    try {
      this.#logger({ eventName: pair[0], pattern: registration.pattern, error, payload: pair[1] });
    } catch {
      // A failing logger must not reach the emitter either.
    }
  }
}
