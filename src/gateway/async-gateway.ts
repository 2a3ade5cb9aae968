/**
 * `AsyncFHIRGateway`: many named FHIR servers behind one Promise-based interface and one keep-alive
 * connection pool.
 * @module
 */
import type { EventDispatcher } from '../events/types.js';
import type { Bundle, Resource, ResourceOf, ResourceType } from '../fhir/index.js';
import { MOUNT, type Mountable } from '../mount/index.js';
import type { CallOptions, CreateOptions } from './core/call-options.js';
import { bulkExport, bulkExportAll, type BulkExportAllOptions, type BulkExportOptions, type BulkItem } from './bulk/index.js';
import { bulkHostOf, engines } from './engine-hand-offs.js';
import { GatewayEngine } from './core/engine.js';
import { gatewayMountable } from './http-face/mountable.js';
import type { FHIRExchangeRequest, FHIRExchangeResponse } from './core/exchange.js';
import { HandlerRegistry } from './http-face/registry.js';
import { aggregateView, engineReader, PatientResolver, type PatientQuery, type PatientResolution, type ResolveOptions } from './identity/index.js';
import type { SearchParams } from './core/search-params.js';
import { modifyCall, type ModifyFn, type ModifyHandle } from './modify.js';
import { checkGatewayOptions, isChecked, type AsyncFHIRGatewayOptions, type GatewayOptions } from './core/options.js';
import { checkPagingOptions, type PageOptions, type SearchAllOptions } from './core/paging.js';
import { poolStatusBody, type PoolStatus } from './core/pool-status.js';
import { searchMatches, searchPages } from './search-pages.js';
import { rotateSourceKey, sourcesJWKS, type JWKSet, type RotatedKey, type RotateKeyOptions, type SourceOptions } from './core/source-keys.js';

/**
 * A Promise-based client of many FHIR servers ("sources"), sharing one keep-alive pool.
 *
 * @example
 * ```ts
 * await using gw = new AsyncFHIRGateway({ maxConnections: 50 });
 * gw.addSource('epic', 'fhir://fhir.example.org/r4/?client_id=app&client_secret_path=key.pem&use_jwt_assertion=true&token_url=https://fhir.example.org/token');
 * const patient = await gw.read('Patient', '123');
 * await gw.modify('Patient', '123', 'epic', (p) => { p.active = true; });
 * ```
 */
export class AsyncFHIRGateway implements AsyncDisposable {
  readonly #options: GatewayOptions;
  readonly #handlers = new HandlerRegistry();
  /** The pool, the sources, the events, the calls in flight and the FHIR operations. */
  readonly #engine: GatewayEngine;
  /** Resolves patients across the sources; `undefined` without the `identity` option. */
  readonly #resolver: PatientResolver | undefined;

  /**
   * Registers the transform handler of a resource type (`gw.transform('Patient', fn)`), or returns a
   * wrapper that registers the function it is given (`gw.transform('Patient')(fn)`). Transform handlers
   * become `GET <prefix>/transform/<type>/<id>` when the gateway is mounted.
   *
   * @example
   * ```ts
   * gw.transform('Patient', async (id, source) => ({ ...(await gw.read('Patient', id, source)), active: true }));
   * ```
   */
  readonly transform: HandlerRegistry['transform'] = this.#handlers.transform.bind(this.#handlers);

  /**
   * Registers the aggregate handler of a resource type, or returns a wrapper that registers the
   * function it is given. Aggregate handlers become `GET <prefix>/aggregate/<type>?patient_id=…&sources=…`.
   *
   * @example
   * ```ts
   * gw.aggregate('Observation', (patientId, sources) => aggregateSources(gw, { resourceType: 'Observation', params: { patient: patientId }, sources: sources ?? gw.sourceNames }));
   * ```
   */
  readonly aggregate: HandlerRegistry['aggregate'] = this.#handlers.aggregate.bind(this.#handlers);

  constructor(options: AsyncFHIRGatewayOptions = {}) {
    // Options a thread checked already (the sync gateway's worker) are not parsed again.
    this.#options = isChecked(options) ? options : checkGatewayOptions(options);
    const engine = new GatewayEngine(this.#options);
    engines.set(this, (this.#engine = engine));
    const { identity } = this.#options;
    this.#resolver =
      identity === undefined
        ? undefined
        : new PatientResolver({
            settings: identity,
            reader: engineReader(engine),
            sources: () => new Map(engine.sources.all().map((s) => [s.name, s.baseUrl])),
            store: this.#options.tokenStore,
            events: engine.events,
            timeoutSeconds: this.#options.timeoutMs / 1000,
          });
  }

  /**
   * Registers (or replaces) a source. The connection string is checked at once (`ERR_CONNECTION_STRING`)
   * and key files read at once (`ERR_AUTH_KEY`); nothing is stored on failure. Replacing a source
   * closes its old connections. Without `token_url`, the token endpoint is discovered at the first
   * token request. `options.nextKeyPath` stages a next assertion key (see {@link rotateKey}).
   *
   * @example
   * ```ts
   * gw.addSource('local', 'fhir://localhost:8080/fhir/');
   * ```
   */
  addSource(name: string, connectionString: string, options?: SourceOptions): void {
    this.#engine.addSource(name, connectionString, options);
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
    return this.#engine.sources.names;
  }

  /**
   * The identifier systems that link patients across sources (the `identity` option's `systems`), or
   * `undefined` without the option: {@link resolvePatient} then resolves nothing.
   *
   * @example
   * ```ts
   * gw.identitySystems; // ['http://hospital.example.org/mrn']
   * ```
   */
  get identitySystems(): readonly string[] | undefined {
    return this.#options.identity?.systems;
  }

  /**
   * Switches a JWT-assertion source to its next key without a restart: the next key signs from the
   * next token request on, the former key leaves the JWKS, and `options.nextKeyPath` (if given) is
   * staged and published as the new next key. The cached access token stays in use. `ERR_AUTH_KEY`
   * when the source has no next key; nothing changes then.
   *
   * @example
   * ```ts
   * const { kid } = gw.rotateKey('epic', { nextKeyPath: '/secrets/epic-2028.pem' });
   * ```
   */
  rotateKey(source?: string, options?: RotateKeyOptions): RotatedKey {
    this.#engine.assertOpen();
    return rotateSourceKey(this.#engine.sources.get(source), options);
  }

  /**
   * The JSON Web Key Set of every JWT-assertion source: current and next public keys with `kid` (as in
   * the assertion header), `alg` and `use: "sig"`, never a private member. `createServiceAPI` serves
   * it at `/.well-known/jwks.json`.
   *
   * @example
   * ```ts
   * gw.jwks().keys.map((k) => k.kid); // ['epic-2026', 'epic-2027']
   * ```
   */
  jwks(): JWKSet {
    return sourcesJWKS(this.#engine.sources.all());
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
    return this.#engine.sources.get(name).baseUrl;
  }

  /**
   * Creates a resource; returns it as the server stored it (with its id). Sends
   * `Prefer: return=representation`; when the server answers with an empty body, the `Location` is read.
   * With `options.ifNoneExist` the create is conditional and returns the created or the existing
   * resource; its event then says `created: true` or `false`.
   *
   * @example
   * ```ts
   * const p = await gw.create({ resourceType: 'Patient', name: [{ family: 'Doe' }] }, 'epic');
   * const once = await gw.create(patient, 'epic', { ifNoneExist: 'identifier=http://hospital.example/mrn|123' });
   * ```
   */
  create<R extends Resource>(resource: R, source?: string, options?: CreateOptions): Promise<ResourceOf<R['resourceType']>> {
    return this.#engine.create(resource, source, options) as unknown as Promise<ResourceOf<R['resourceType']>>;
  }

  /**
   * Reads a resource by type and id.
   *
   * @example
   * ```ts
   * const p = await gw.read('Patient', '123', 'epic'); // a Patient
   * ```
   */
  read<T extends ResourceType>(type: T, id: string, source?: string, options?: CallOptions): Promise<ResourceOf<T>> {
    return this.#engine.read(type, id, source, options) as unknown as Promise<ResourceOf<T>>;
  }

  /**
   * Replaces a resource (`PUT [base]/[type]/[id]`); a resource without an id is `ERR_INVALID_RESOURCE`
   * before any I/O.
   *
   * @example
   * ```ts
   * const saved = await gw.update({ ...patient, active: false }, 'epic');
   * ```
   */
  update<R extends Resource>(resource: R, source?: string, options?: CallOptions): Promise<ResourceOf<R['resourceType']>> {
    return this.#engine.update(resource, source, options) as unknown as Promise<ResourceOf<R['resourceType']>>;
  }

  /**
   * Deletes a resource: `true` when the server deleted it (200, 202, 204), `false` when it was not
   * there (404, 410). The event is sent only for `true`.
   *
   * @example
   * ```ts
   * if (!(await gw.delete('Patient', '123', 'epic'))) console.log('already gone');
   * ```
   */
  delete(type: ResourceType, id: string, source?: string, options?: CallOptions): Promise<boolean> {
    return this.#engine.delete(type, id, source, options);
  }

  /**
   * Searches (`GET [base]/[type]?params`); returns the first page, a `searchset` Bundle. Values:
   * strings, numbers, booleans; an array repeats the parameter.
   *
   * @example
   * ```ts
   * const bundle = await gw.search('Patient', { family: 'Doe', _count: 10 }, 'epic');
   * ```
   */
  search<T extends ResourceType>(type: T, params: SearchParams = {}, source?: string, options?: CallOptions): Promise<Bundle<ResourceOf<T>>> {
    return this.#engine.search(type, params, source, options) as Promise<Bundle<ResourceOf<T>>>;
  }

  /**
   * Pages through a search: the first page, then each `Bundle.link[relation=next]` exactly as the server
   * gives it (HAPI's `[base]?_getpages=…` included), only on the source's origin (`ERR_CROSS_ORIGIN`,
   * nothing sent) and never twice (`ERR_PAGINATION`). Stops after `maxPages`. Each page fetched is one
   * `fhir.<type>.search` event with `page` (1, 2, ...) and that page's `result_count`. Nothing is sent
   * until the first `next()`; breaking out of the loop stops fetching.
   *
   * @example
   * ```ts
   * for await (const page of gw.pages('Observation', { patient: '123', _count: 100 }, 'epic', { maxPages: 10 })) {
   *   console.log(page.entry?.length);
   * }
   * ```
   */
  pages<T extends ResourceType>(type: T, params: SearchParams = {}, source?: string, options?: PageOptions): AsyncGenerator<Bundle<ResourceOf<T>>, void, undefined> {
    return searchPages(this.#engine, type, params, source, checkPagingOptions(options, 'pages')) as AsyncGenerator<Bundle<ResourceOf<T>>, void, undefined>;
  }

  /**
   * The resources a search matched, across its pages (see {@link pages}): entries with `search.mode`
   * `match`, or without a mode; `include` and `outcome` entries are left out. Stops after
   * `maxResources` resources (no page is fetched past them) or `maxPages` pages.
   *
   * @example
   * ```ts
   * for await (const obs of gw.searchAll('Observation', { patient: '123' }, 'epic', { maxResources: 1000 })) {
   *   console.log(obs.id);
   * }
   * ```
   */
  searchAll<T extends ResourceType>(type: T, params: SearchParams = {}, source?: string, options?: SearchAllOptions): AsyncGenerator<ResourceOf<T>, void, undefined> {
    const limits = checkPagingOptions(options, 'searchAll');
    return searchMatches(searchPages(this.#engine, type, params, source, limits), limits.maxResources) as AsyncGenerator<ResourceOf<T>, void, undefined>;
  }

  /**
   * Posts a `transaction` Bundle to the source's base (`POST [base]`): the server applies every entry
   * or none. Returns the `transaction-response` Bundle (`entry[].response.status`, `location`, `etag`);
   * a failed transaction is `ERR_FHIR_HTTP` with the server's status and OperationOutcome. The Bundle is
   * checked first (`ERR_INVALID_RESOURCE`); a missing `type` is set. One `fhir.bundle.transaction` event.
   *
   * @example
   * ```ts
   * const p = createEntry({ resourceType: 'Patient', name: [{ family: 'Doe' }] });
   * const o = createEntry({ resourceType: 'Observation', status: 'final', code: { text: 'pulse' }, subject: { reference: p.fullUrl } });
   * const answer = await gw.transaction(requestBundle('transaction', [p, o]), 'epic');
   * answer.entry?.map((e) => e.response?.location);
   * ```
   */
  transaction(bundle: Bundle, source?: string, options?: CallOptions): Promise<Bundle> {
    return this.#engine.postBundle('transaction', bundle, source, options);
  }

  /**
   * Posts a `batch` Bundle to the source's base (`POST [base]`): the server runs each entry on its own.
   * Returns the `batch-response` Bundle, one entry per request entry in order, failures included
   * (`response.status` `404 Not Found`, `response.outcome`). One `fhir.bundle.batch` event with
   * `entry_count` and `error_count`.
   *
   * @example
   * ```ts
   * const answer = await gw.batch(requestBundle('batch', [readEntry('Patient', '1'), readEntry('Patient', '2')]));
   * answer.entry?.map((e) => e.response?.status); // ['200 OK', '404 Not Found']
   * ```
   */
  batch(bundle: Bundle, source?: string, options?: CallOptions): Promise<Bundle> {
    return this.#engine.postBundle('batch', bundle, source, options);
  }

  /**
   * One raw FHIR request to a source through the gateway's pool, its token (the caller's own
   * `Authorization` is never sent), retries and events, answered whatever its status: what a
   * pass-through (the FHIR facade of `fhirgate/facade`) needs. Only `Accept`, `Prefer`, `If-Match`,
   * `If-None-Match`, `If-None-Exist`, `If-Modified-Since` and `Content-Type` go up; only
   * `Content-Type`, `ETag`, `Last-Modified`, `Location`, `Content-Location`, `Retry-After` and
   * `X-Progress` come back. An absolute `path` must be under the source's base (`ERR_CROSS_ORIGIN`).
   *
   * @example
   * ```ts
   * const res = await gw.exchange('epic', { method: 'GET', path: 'Patient?family=Doe', headers: { accept: 'application/fhir+json' } });
   * if (res.status === 200) console.log(JSON.parse(res.body.toString('utf8')).total);
   * ```
   */
  exchange(source: string, request: FHIRExchangeRequest, options?: CallOptions): Promise<FHIRExchangeResponse> {
    return this.#engine.exchange(source, request, options);
  }

  /**
   * One patient's local id in every source (or `options.sources`), by business identifier
   * (`{ identifier: 'system|value' }`, a system of the `identity` option) or from a local id in one
   * source (`{ source, id }`: that record's identifiers of the configured systems are read, only those
   * its source is an authority for). Each source answers `found` (exactly one record carries the
   * identifiers, after following `Patient.link` `replaced-by`), `absent`, `ambiguous` (two or more
   * records, or identifiers pointing to different records: refuse it) or `failed` (it could not be
   * asked: never guessed around). Cached for `identity.ttlSeconds` (in the `tokenStore` too, so that
   * replicas agree); every resolution sends a `fhir.patient.resolve` event. A `TypeError` at once without the
   * `identity` option, a rejected `TypeError` for a malformed query; `ERR_UNKNOWN_SOURCE` for a source that is not registered.
   *
   * @example
   * ```ts
   * const r = await gw.resolvePatient({ identifier: 'http://hospital.example.org/mrn|12345' });
   * for (const o of r.outcomes) {
   *   if (o.status === 'found') console.log(o.source, 'Patient/' + o.id);
   *   else if (o.status === 'ambiguous' || o.status === 'failed') console.warn(o.source, o.status, o.reason);
   * }
   * ```
   */
  resolvePatient(query: PatientQuery, options?: ResolveOptions): Promise<PatientResolution> {
    const resolver = this.#resolver;
    if (resolver === undefined) throw new TypeError("resolvePatient needs the gateway's identity option: new AsyncFHIRGateway({ identity: { systems: [...] } })");
    return this.#engine.run(undefined, () => resolver.resolve(query, options));
  }

  /** Reads, calls `fn`, saves with `If-Match`; nothing is saved if `fn` throws. Retries a 412 up to 3 tries. */
  modify<T extends ResourceType>(type: T, id: string, source: string | undefined, fn: ModifyFn<ResourceOf<T>>, options?: CallOptions): Promise<ResourceOf<T>>;
  /** Reads and returns a handle that saves when its `await using` scope ends (see {@link ModifyHandle}). */
  modify<T extends ResourceType>(type: T, id: string, source?: string, options?: CallOptions): Promise<ModifyHandle<ResourceOf<T>>>;
  /**
   * Read-modify-write with optimistic locking (`If-Match: W/"<version read>"`). Nothing is sent when the
   * resource did not change. A lost race (412) is `ERR_CONFLICT`.
   *
   * @example
   * ```ts
   * await gw.modify('Patient', '123', 'epic', (p) => { p.active = true; });
   * ```
   */
  modify<T extends ResourceType>(type: T, id: string, source?: string, fnOrOptions?: ModifyFn<ResourceOf<T>> | CallOptions, options?: CallOptions): Promise<unknown> {
    return modifyCall<ResourceOf<T>>(this.#engine, type, id, source, fnOrOptions, options);
  }

  /**
   * A FHIR Bulk Data export (Bulk Data Access IG 2.0.0) of one source, as an async iterable of
   * {@link BulkItem}s: each resource of the output files with its type and file URL, the
   * OperationOutcomes of the error files. Files are streamed, a line at a time. See
   * {@link BulkExportOptions} for the level, `types`, `since`, `typeFilter`, deadline, polling and
   * file origins; `signal` cancels (the server's job is deleted).
   *
   * @example
   * ```ts
   * for await (const item of gw.bulkExport('epic', { level: { group: 'cohort-1' }, types: ['Patient', 'Observation'], since: '2024-01-01' })) {
   *   if (item.kind === 'output') console.log(item.type, item.resource.id, item.url);
   * }
   * ```
   */
  bulkExport(source?: string, options?: BulkExportOptions): AsyncGenerator<BulkItem, void, undefined> {
    return bulkExport(bulkHostOf(this.#engine), source, options);
  }

  /**
   * Bulk Data exports of several sources (default: all) at once, within the pool's limits, merged
   * into one async iterable; every item carries its `source`. The first failure stops the others.
   *
   * @example
   * ```ts
   * for await (const item of gw.bulkExportAll(['epic', 'cerner'], { types: ['Patient'] })) console.log(item.source, item.resource.id);
   * ```
   */
  bulkExportAll(sources?: readonly string[], options?: BulkExportAllOptions): AsyncGenerator<BulkItem, void, undefined> {
    return bulkExportAll(bulkHostOf(this.#engine), sources ?? this.sourceNames, options);
  }

  /**
   * A JSON-safe picture of the pool: `limits`, `totals` and per source `{origin, active, idle, queued,
   * requests, errors}`. Never a secret.
   *
   * @example
   * ```ts
   * gw.getPoolStatus().totals; // { active: 0, idle: 2, queued: 0 }
   * ```
   */
  getPoolStatus(): PoolStatus {
    return this.#engine.poolStatus();
  }

  /**
   * Lets the calls in flight finish, then closes every socket. Idempotent; later calls reject with
   * `ERR_CLOSED`.
   *
   * @example
   * ```ts
   * await gw.close();
   * ```
   */
  close(): Promise<void> {
    return this.#engine.close();
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
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
    this.#engine.events.use(dispatcher);
  }

  /** The gateway's face for `createServiceAPI().registerGateway()`: its handlers, its events and its facts. */
  [MOUNT](): Mountable {
    return gatewayMountable({
      className: 'AsyncFHIRGateway',
      fhirVersion: this.#options.fhirVersion,
      registry: this.#handlers,
      events: this.#engine.events,
      sourceNames: () => this.sourceNames,
      poolStatus: () => poolStatusBody(this.getPoolStatus()),
      jwks: () => this.jwks().keys,
      close: () => this.close(),
      ...(this.#resolver === undefined
        ? {}
        : { aggregatePatient: (identifier: string, sources: string[] | undefined) => this.resolvePatient({ identifier }, sources === undefined ? {} : { sources }).then(aggregateView) }),
    });
  }

}
