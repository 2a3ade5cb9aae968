/**
 * `FHIRGateway`: the synchronous gateway, a thin bridge over `AsyncFHIRGateway` running in a worker.
 * @module
 */
import type { Bundle, Resource, ResourceOf, ResourceType } from '../fhir/index.js';
import { MOUNT } from '../mount/index.js';
import type { Mountable } from '../mount/index.js';
import type { EventDispatcher } from '../events/types.js';
import { GatewayEvents } from './core/gateway-events.js';
import { gatewayMountable } from './http-face/mountable.js';
import { HandlerRegistry } from './http-face/registry.js';
import type { SearchParams } from './core/search-params.js';
import { ifNoneExistHeader } from './core/if-none-exist.js';
import { CALL_OPTION_KEYS } from './core/call-options.js';
import { onlyKnownKeys } from '../lib/options.js';
import { checkPagingOptions } from './core/paging.js';
import type { BulkExportAllOptions, BulkExportBaseOptions, BulkItem } from './bulk/index.js';
import { keyOptionArgs, type JWKSet, type RotatedKey, type RotateKeyOptions, type SourceOptions } from './core/source-keys.js';
import type { CollectedEvent } from './sync/collecting-dispatcher.js';
import { checkSyncOptions } from './sync/options.js';
import type { FHIRGatewayOptions, SyncGatewayOptions, SyncPagingOptions } from './sync/options.js';
import { remoteLimits, SyncCursors } from './sync/cursor-iterators.js';
import { WorkerCalls } from './sync/worker-calls.js';

export type { FHIRGatewayOptions, SyncPagingOptions } from './sync/options.js';

/**
 * A synchronous client of many FHIR servers: the same operations, arguments, errors, events and
 * connection strings as `AsyncFHIRGateway`, returning values instead of Promises (`pages` and
 * `searchAll` return sync iterators). No pool options, no `modify`, no `getPoolStatus`.
 *
 * Each gateway runs an `AsyncFHIRGateway` in its own worker thread (started on first use, never keeping
 * the process alive, ended by {@link close}); a call blocks the calling thread with `Atomics.wait`
 * until the worker answers, at most three request time-outs plus 5 s (`ERR_TIMEOUT`). Connections
 * stay alive and tokens are cached across calls. Events are emitted on the calling thread.
 *
 * A FHIR server running on the calling thread can never answer a sync call: for the servers named in
 * the `sameThreadOrigins` option that is detected (`ERR_DEADLOCK`); any other same-thread server
 * blocks until the time-out. Handlers
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
  readonly #events: GatewayEvents;
  readonly #handlers = new HandlerRegistry();

  /**
   * Registers the transform handler of a resource type, or returns a wrapper that registers the
   * function it is given. Transform handlers become `GET <prefix>/transform/<type>/<id>` when mounted;
   * on a `FHIRGateway` they run on the host's thread and block it while it waits for upstream servers.
   *
   * @example
   * ```ts
   * gw.transform('Patient', (id, source) => ({ ...gw.read('Patient', id, source), active: true }));
   * ```
   */
  readonly transform: HandlerRegistry['transform'] = this.#handlers.transform.bind(this.#handlers);

  /**
   * Registers the aggregate handler of a resource type, or returns a wrapper that registers the
   * function it is given. Aggregate handlers become `GET <prefix>/aggregate/<type>?patient_id=…&sources=…`;
   * on a `FHIRGateway` they block the host's thread during upstream I/O.
   *
   * @example
   * ```ts
   * gw.aggregate('Observation', (patientId) => gw.search('Observation', { patient: patientId }));
   * ```
   */
  readonly aggregate: HandlerRegistry['aggregate'] = this.#handlers.aggregate.bind(this.#handlers);
  /** The worker, its blocking calls and what this thread knows of the sources. */
  readonly #calls: WorkerCalls;
  readonly #cursors: SyncCursors;
  constructor(options: FHIRGatewayOptions = {}) {
    const checked = checkSyncOptions(options);
    this.#events = new GatewayEvents(checked);
    this.#options = checked;
    this.#calls = new WorkerCalls(checked, (events) => this.#emitAll(events));
    this.#cursors = new SyncCursors({
      io: (method, args, source, waitMs) => this.#calls.io(method, args, source, waitMs),
      release: (cursor) => {
        if (!this.#calls.closed) this.#calls.call('return', [cursor]);
      },
      releaseLater: (cursor) => this.#calls.send('return', [cursor]),
    });
  }

  /**
   * Registers (or replaces) a source, as `AsyncFHIRGateway.addSource`: parsed once, at once, on the calling
   * thread (`ERR_CONNECTION_STRING`, `TypeError`); the worker takes the parsed settings and reads the key
   * files (`ERR_AUTH_KEY`).
   *
   * @example
   * ```ts
   * gw.addSource('local', 'fhir://localhost:8080/fhir/');
   * ```
   */
  addSource(name: string, connectionString: string, options?: SourceOptions): void {
    this.#calls.addSource(name, connectionString, options);
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
    return this.#calls.sourceNames;
  }

  /**
   * `AsyncFHIRGateway.rotateKey`, done in the worker, which signs.
   * @example
   * ```ts
   * const { kid } = gw.rotateKey('epic', { nextKeyPath: '/secrets/epic-2028.pem' });
   * ```
   */
  rotateKey(source?: string, options?: RotateKeyOptions): RotatedKey {
    return this.#calls.call('rotateKey', [source, ...keyOptionArgs(options, 'rotateKey')]) as RotatedKey;
  }

  /**
   * `AsyncFHIRGateway.jwks`, read from the worker (empty before the first source and once closed).
   * @example
   * ```ts
   * gw.jwks().keys.map((k) => k.kid);
   * ```
   */
  jwks(): JWKSet {
    return this.#calls.running ? (this.#calls.call('jwks', []) as JWKSet) : { keys: [] };
  }

  /**
   * How many `pages()`/`searchAll()` iterators hold an open cursor in the worker (started, neither
   * finished nor returned, not yet garbage-collected); at most `maxOpenCursors`. 0 before the first
   * call and after {@link close}. A blocking call to the worker.
   *
   * @example
   * ```ts
   * const gw = new FHIRGateway();
   * gw.addSource('epic', process.env.EPIC_FHIR!);
   * for (const page of gw.pages('Patient')) break;
   * gw.openCursors; // 0: breaking out returned the cursor
   * ```
   */
  get openCursors(): number {
    return this.#calls.running ? (this.#calls.call('openCursors', []) as number) : 0;
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
    return this.#calls.call('sourceBaseUrl', [name]) as string;
  }

  /**
   * Creates a resource; returns it as the server stored it (with its id). With `options.ifNoneExist`
   * (`identifier=sys|123`, or search parameters) the create is conditional and returns the created or
   * the existing resource.
   *
   * @example
   * ```ts
   * const p = gw.create({ resourceType: 'Patient', name: [{ family: 'Doe' }] }, 'epic');
   * const once = gw.create(patient, 'epic', { ifNoneExist: 'identifier=http://hospital.example/mrn|123' });
   * ```
   */
  create<R extends Resource>(resource: R, source?: string, options?: { ifNoneExist?: string | SearchParams }): ResourceOf<R['resourceType']> {
    if (options !== undefined && (typeof options !== 'object' || options === null)) throw new TypeError('options must be an object');
    if (options !== undefined) onlyKnownKeys(options, CALL_OPTION_KEYS.syncCreate, 'options');
    const condition = options?.ifNoneExist === undefined ? undefined : ifNoneExistHeader(options.ifNoneExist);
    return this.#calls.io('create', [resource, source, ...(condition === undefined ? [] : [{ ifNoneExist: condition }])], source) as ResourceOf<R['resourceType']>;
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
    return this.#calls.io('read', [type, id, source], source) as ResourceOf<T>;
  }

  /**
   * Replaces a resource (`PUT [base]/[type]/[id]`); a resource without an id is `ERR_INVALID_RESOURCE`.
   *
   * @example
   * ```ts
   * const saved = gw.update({ ...patient, active: false }, 'epic');
   * ```
   */
  update<R extends Resource>(resource: R, source?: string): ResourceOf<R['resourceType']> {
    return this.#calls.io('update', [resource, source], source) as ResourceOf<R['resourceType']>;
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
    return this.#calls.io('delete', [type, id, source], source) as boolean;
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
    return this.#calls.io('search', [type, params, source], source) as Bundle<ResourceOf<T>>;
  }

  /**
   * Pages through a search like `AsyncFHIRGateway.pages`, as a sync iterator: each step fetches one
   * page (one blocking call with the usual time-out), following `next` links on the source's origin
   * only and never twice. `Array.from(gw.pages(...))` collects them; breaking out stops fetching.
   * Each started iterator holds a cursor in the worker until it finishes or is returned (a `for...of`
   * left early returns it); one dropped unfinished is closed once garbage-collected, and beyond
   * `maxOpenCursors` open at once the least recently used is closed (its next step throws `ERR_CLOSED`).
   *
   * @example
   * ```ts
   * const gw = new FHIRGateway();
   * gw.addSource('epic', process.env.EPIC_FHIR!);
   * for (const page of gw.pages('Observation', { patient: '123', _count: 100 }, 'epic', { maxPages: 10 })) {
   *   console.log(page.entry?.length);
   * }
   * ```
   */
  pages<T extends ResourceType>(type: T, params: SearchParams = {}, source?: string, options?: SyncPagingOptions): Generator<Bundle<ResourceOf<T>>, void, undefined> {
    return this.#cursors.iterate('pages', [type, params, source, remoteLimits(checkPagingOptions(options, 'searchAll', false))], source) as Generator<Bundle<ResourceOf<T>>, void, undefined>;
  }

  /**
   * The resources a search matched across its pages, like `AsyncFHIRGateway.searchAll`, as a sync
   * iterator (one blocking call a resource; a page is fetched when its first resource is asked for);
   * stops after `maxResources` resources or `maxPages` pages.
   *
   * @example
   * ```ts
   * const gw = new FHIRGateway();
   * gw.addSource('epic', process.env.EPIC_FHIR!);
   * const all = Array.from(gw.searchAll('Observation', { patient: '123' }, 'epic', { maxResources: 1000 }));
   * ```
   */
  searchAll<T extends ResourceType>(type: T, params: SearchParams = {}, source?: string, options?: SyncPagingOptions): Generator<ResourceOf<T>, void, undefined> {
    return this.#cursors.iterate('searchAll', [type, params, source, remoteLimits(checkPagingOptions(options, 'searchAll', false))], source) as Generator<ResourceOf<T>, void, undefined>;
  }

  /**
   * A Bulk Data export like `AsyncFHIRGateway.bulkExport`, as a sync iterator: each step is one
   * blocking call that waits at most the export's `deadlineSeconds` plus three request time-outs (the first
   * step waits for the server to finish the job). No `signal`: leave the loop to cancel (the job is
   * deleted on the server).
   *
   * @example
   * ```ts
   * const gw = new FHIRGateway();
   * gw.addSource('epic', process.env.EPIC_FHIR!);
   * for (const item of gw.bulkExport('epic', { types: ['Patient'], since: '2024-01-01' })) console.log(item.type, item.resource.id);
   * ```
   */
  bulkExport(source?: string, options: BulkExportBaseOptions = {}): Generator<BulkItem, void, undefined> {
    const { settings, waitMs } = this.#calls.bulkWait(options, 'bulkExport');
    return this.#cursors.iterate('bulkExport', [source, settings], source, waitMs) as Generator<BulkItem, void, undefined>;
  }

  /**
   * Bulk Data exports of several sources (default: all) at once, like `AsyncFHIRGateway.bulkExportAll`,
   * as a sync iterator.
   *
   * @example
   * ```ts
   * const gw = new FHIRGateway();
   * gw.addSource('epic', process.env.EPIC_FHIR!);
   * gw.addSource('cerner', process.env.CERNER_FHIR!);
   * const patients = Array.from(gw.bulkExportAll(['epic', 'cerner'], { types: ['Patient'] }));
   * ```
   */
  bulkExportAll(sources: readonly string[] = this.sourceNames, options: Omit<BulkExportAllOptions, 'signal'> = {}): Generator<BulkItem, void, undefined> {
    const { settings, waitMs } = this.#calls.bulkWait(options, 'bulkExportAll');
    const concurrency = (options as { concurrency?: unknown } | null)?.concurrency;
    return this.#cursors.iterate('bulkExportAll', [sources, concurrency === undefined ? settings : { ...settings, concurrency }], sources[0], waitMs) as Generator<BulkItem, void, undefined>;
  }

  /**
   * Posts a `transaction` Bundle to the source's base: every entry or none. Returns the
   * `transaction-response` Bundle; a failed transaction is `ERR_FHIR_HTTP` with the server's status.
   *
   * @example
   * ```ts
   * const answer = gw.transaction(requestBundle('transaction', [createEntry(patient), deleteEntry('Patient', 'old')]), 'epic');
   * ```
   */
  transaction(bundle: Bundle, source?: string): Bundle {
    return this.#calls.io('transaction', [bundle, source], source) as Bundle;
  }

  /**
   * Posts a `batch` Bundle to the source's base: each entry on its own. Returns the `batch-response`
   * Bundle with one outcome per entry, failures included.
   *
   * @example
   * ```ts
   * const answer = gw.batch(requestBundle('batch', [readEntry('Patient', '1'), readEntry('Patient', '2')]));
   * ```
   */
  batch(bundle: Bundle, source?: string): Bundle {
    return this.#calls.io('batch', [bundle, source], source) as Bundle;
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
    this.#calls.close();
  }

  /**
   * Same as {@link close}.
   *
   * @example
   * ```ts
   * { using gw = new FHIRGateway(); gw.addSource('epic', process.env.EPIC_FHIR!); } // closed here
   * ```
   */
  [Symbol.dispose](): void {
    this.close();
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
    this.#events.use(dispatcher);
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
      fhirVersion: this.#options.fhirVersion,
      registry: this.#handlers,
      events: this.#events,
      sourceNames: () => this.sourceNames,
      poolStatus: () => null,
      jwks: () => this.jwks().keys,
      close: async () => this.close(),
    });
  }

  #emitAll(events: CollectedEvent[]): void {
    for (const [name, payload] of events) this.#events.emit(name, payload);
  }
}
