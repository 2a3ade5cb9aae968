/**
 * `FHIRGateway`: the synchronous gateway, a thin bridge over `AsyncFHIRGateway` running in a worker.
 * @module
 */
import { parseConnectionString } from '../auth/index.js';
import { localHandler } from '../events/index.js';
import type { EventDispatcher, EventPayload } from '../events/types.js';
import type { Bundle, Resource, ResourceOf, ResourceType } from '../fhir/index.js';
import { MOUNT } from '../mount.js';
import type { Mountable } from '../mount.js';
import { gatewayMountable, HandlerRegistry } from './handlers/index.js';
import type { AggregateHandler, SearchParams, TransformHandler } from './handlers/index.js';
import { SyncBridge, siblingModuleUrl } from './sync/bridge.js';
import type { CollectedEvent } from './sync/collecting-dispatcher.js';
import { refuseSameThreadServer } from './sync/deadlock.js';
import { checkSyncOptions } from './sync/options.js';
import type { FHIRGatewayOptions, SyncGatewayOptions } from './sync/options.js';

export type { FHIRGatewayOptions } from './sync/options.js';

/**
 * How long past its request time-out a blocked call waits for the worker: a request may be followed by
 * a token refresh and one retry (after a 401) or a read of its `Location`, each bounded by the
 * time-out; then a few seconds of margin.
 */
const WAIT_REQUESTS = 3;
const WAIT_MARGIN_MS = 5_000;

/** What the calling thread knows of a source: its time-out and the origins a call to it reaches. */
interface SourceFacts {
  readonly timeoutMs: number;
  readonly origins: readonly string[];
}

/**
 * A synchronous client of many FHIR servers: the same operations, arguments, errors, events and
 * connection strings as `AsyncFHIRGateway`, returning values instead of Promises. No pool options,
 * no `modify`, no `getPoolStatus`.
 *
 * Each gateway runs an `AsyncFHIRGateway` in its own worker thread (started on first use, never keeping
 * the process alive, ended by {@link close}); a call blocks the calling thread with `Atomics.wait`
 * until the worker answers, at most three request time-outs plus 5 s (`ERR_TIMEOUT`). Connections
 * stay alive and tokens are cached across calls. Events are emitted on the calling thread.
 *
 * A FHIR server running on the calling thread can never answer a sync call: for the embedded sandbox
 * that is detected (`ERR_DEADLOCK`); any other same-thread server blocks until the time-out. Handlers
 * registered on a sync gateway run on the host's thread and block it during upstream I/O, so servers
 * should use `AsyncFHIRGateway`; this one is for scripts, notebooks and command-line tools.
 *
 * @example
 * ```ts
 * using gw = new FHIRGateway();
 * gw.addSource('epic', 'fhir://fhir.example.org/r4/?client_id=app&client_secret=s3cret&token_url=https://fhir.example.org/token');
 * const patient = gw.read('Patient', '123', 'epic'); // a Patient, not a Promise
 * ```
 */
export class FHIRGateway implements Disposable {
  readonly #options: SyncGatewayOptions;
  readonly #bridge: SyncBridge;
  readonly #sources = new Map<string, SourceFacts>();
  readonly #registry = new HandlerRegistry();
  #dispatcher: EventDispatcher | null;

  constructor(options: FHIRGatewayOptions = {}) {
    this.#options = checkSyncOptions(options);
    this.#dispatcher = this.#options.events ? (this.#options.dispatcher ?? localHandler) : null;
    this.#bridge = new SyncBridge({
      workerUrl: siblingModuleUrl(import.meta.url, './sync/gateway-worker'),
      workerData: this.#options.worker,
      name: 'FHIRGateway',
      onExtra: (events) => this.#emitAll(events as CollectedEvent[]),
    });
  }

  /**
   * Registers (or replaces) a source. The connection string is checked at once on the calling thread
   * (`ERR_CONNECTION_STRING`), then by the worker, which also reads a key file (`ERR_AUTH_KEY`).
   *
   * @example
   * ```ts
   * gw.addSource('local', 'fhir://localhost:8080/fhir/');
   * ```
   */
  addSource(name: string, connectionString: string): void {
    this.#bridge.assertOpen();
    const config = parseConnectionString(connectionString);
    const timeoutMs = config.timeoutMs ?? this.#options.timeoutMs;
    this.#call('addSource', [name, connectionString], timeoutMs);
    const tokenUrl = config.auth?.tokenUrl;
    this.#sources.set(name, { timeoutMs, origins: tokenUrl === undefined ? [config.origin] : [config.origin, new URL(tokenUrl).origin] });
  }

  /**
   * The source names, in registration order.
   *
   * @example
   * ```ts
   * gw.sourceNames; // ['epic', 'cerner']
   * ```
   */
  get sourceNames(): string[] {
    return [...this.#sources.keys()];
  }

  /**
   * The FHIR base URL of a source (no trailing slash, no credentials).
   *
   * @example
   * ```ts
   * gw.sourceBaseUrl('epic'); // 'https://fhir.example.org/r4'
   * ```
   */
  sourceBaseUrl(name?: string): string {
    return this.#call('sourceBaseUrl', [name], this.#options.timeoutMs) as string;
  }

  /**
   * Creates a resource; returns it as the server stored it (with its id).
   *
   * @example
   * ```ts
   * const p = gw.create({ resourceType: 'Patient', name: [{ family: 'Doe' }] }, 'epic');
   * ```
   */
  create<R extends Resource>(resource: R, source?: string): R {
    return this.#io('create', [resource, source], source) as R;
  }

  /**
   * Reads a resource by type and id.
   *
   * @example
   * ```ts
   * const p = gw.read('Patient', '123', 'epic'); // a Patient
   * ```
   */
  read<T extends ResourceType>(type: T, id: string, source?: string): ResourceOf<T> {
    return this.#io('read', [type, id, source], source) as ResourceOf<T>;
  }

  /**
   * Replaces a resource (`PUT [base]/[type]/[id]`); a resource without an id is `ERR_INVALID_RESOURCE`.
   *
   * @example
   * ```ts
   * const saved = gw.update({ ...patient, active: false }, 'epic');
   * ```
   */
  update<R extends Resource>(resource: R, source?: string): R {
    return this.#io('update', [resource, source], source) as R;
  }

  /**
   * Deletes a resource: `true` when the server deleted it, `false` when it was not there (404, 410).
   *
   * @example
   * ```ts
   * if (!gw.delete('Patient', '123', 'epic')) console.log('already gone');
   * ```
   */
  delete(type: ResourceType, id: string, source?: string): boolean {
    return this.#io('delete', [type, id, source], source) as boolean;
  }

  /**
   * Searches (`GET [base]/[type]?params`); returns the first page, a `searchset` Bundle.
   *
   * @example
   * ```ts
   * const bundle = gw.search('Patient', { family: 'Doe', _count: 10 }, 'epic');
   * ```
   */
  search<T extends ResourceType>(type: T, params?: SearchParams, source?: string): Bundle<ResourceOf<T>> {
    return this.#io('search', [type, params, source], source) as Bundle<ResourceOf<T>>;
  }

  /** Registers the transform handler of `type` and returns it. */
  transform<T extends ResourceType>(type: T, handler: TransformHandler<T>): TransformHandler<T>;
  /** Returns a wrapper that registers the handler it is applied to. */
  transform<T extends ResourceType>(type: T): <H extends TransformHandler<T>>(handler: H) => H;
  /**
   * Transform handlers become `GET <prefix>/transform/<type>/<id>` when the gateway is mounted. They
   * run on the host's thread and block it while this gateway waits for upstream servers.
   *
   * @example
   * ```ts
   * gw.transform('Patient', (id, source) => ({ ...gw.read('Patient', id, source), active: true }));
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
   * Aggregate handlers become `GET <prefix>/aggregate/<type>?patient_id=…&sources=…` when mounted. They
   * run on the host's thread and block it while this gateway waits for upstream servers.
   *
   * @example
   * ```ts
   * gw.aggregate('Observation', (patientId) => gw.search('Observation', { patient: patientId }));
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
    if (this.#options.events) this.#dispatcher = dispatcher;
  }

  /**
   * Closes the worker's connections and ends the worker. Idempotent; later calls throw `ERR_CLOSED`.
   *
   * @example
   * ```ts
   * gw.close();
   * ```
   */
  close(): void {
    if (this.#bridge.closed) return;
    try {
      if (this.#bridge.started) this.#bridge.call('close', [], this.#options.timeoutMs);
    } catch {
      // The worker is ended below whatever its close() answered.
    } finally {
      this.#bridge.close();
    }
  }

  /**
   * Same as {@link close}.
   *
   * @example
   * ```ts
   * { using gw = new FHIRGateway(); gw.addSource('a', cs); } // closed here
   * ```
   */
  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * The gateway's face for `createServiceAPI().registerGateway()`. Its handlers run on the host's
   * thread and block it during upstream I/O: servers should mount an `AsyncFHIRGateway`.
   *
   * @example
   * ```ts
   * app.registerGateway(gw, { path: '/fhir' });
   * ```
   */
  [MOUNT](): Mountable {
    return gatewayMountable({
      className: 'FHIRGateway',
      registry: this.#registry,
      sourceNames: () => this.sourceNames,
      poolStatus: () => null,
      emit: (name: string, payload: EventPayload) => this.#dispatcher?.emit(name, payload),
      useEvents: (dispatcher: EventDispatcher | null) => this.useEvents(dispatcher),
      eventsEnabled: () => this.#dispatcher !== null,
      close: async () => this.close(),
    });
  }

  /** A call that reaches a FHIR server: refused at once when that server runs on this thread. */
  #io(method: string, args: unknown[], source: string | undefined): unknown {
    this.#bridge.assertOpen();
    const facts = this.#facts(source);
    if (facts !== undefined) refuseSameThreadServer('FHIRGateway', facts.origins);
    return this.#call(method, args, facts?.timeoutMs ?? this.#options.timeoutMs);
  }

  #call(method: string, args: unknown[], timeoutMs: number): unknown {
    return this.#bridge.call(method, args, WAIT_REQUESTS * timeoutMs + WAIT_MARGIN_MS);
  }

  /** The facts of `source`, or of the first source when it is omitted; `undefined` when unknown. */
  #facts(source: string | undefined): SourceFacts | undefined {
    if (source === undefined) return this.#sources.values().next().value;
    return typeof source === 'string' ? this.#sources.get(source) : undefined;
  }

  #emitAll(events: CollectedEvent[]): void {
    for (const [name, payload] of events) this.#dispatcher?.emit(name, payload);
  }
}
