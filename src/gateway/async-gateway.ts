/**
 * `AsyncFHIRGateway`: many named FHIR servers behind one Promise-based interface and one keep-alive
 * connection pool.
 * @module
 */
import { parseConnectionString, TokenManager } from '../auth/index.js';
import { FhirgateError } from '../errors.js';
import { localHandler } from '../events/index.js';
import type { EventDispatcher, EventPayload } from '../events/types.js';
import type { Bundle, Resource, ResourceOf, ResourceType } from '../fhir/index.js';
import { AgentPool } from '../http/index.js';
import type { HttpResponse } from '../http/index.js';
import { MOUNT } from '../mount.js';
import type { Mountable } from '../mount.js';
import { callFhir, readResource } from './fhir-call.js';
import type { CallContext, FhirCall } from './fhir-call.js';
import { gatewayMountable, HandlerRegistry } from './handlers/index.js';
import type { AggregateHandler, SearchParams, TransformHandler } from './handlers/index.js';
import { ModifyHandle, MODIFY_ATTEMPTS } from './modify.js';
import type { ModifyFn } from './modify.js';
import { checkGatewayOptions } from './options.js';
import type { AsyncFHIRGatewayOptions, GatewayOptions } from './options.js';
import { poolStatus } from './pool-status.js';
import type { PoolStatus } from './pool-status.js';
import { checkId, checkResource, checkType, resourceUrl } from './resource-path.js';
import { searchQuery } from './search-params.js';
import { SourceRegistry } from './source-registry.js';
import type { Source } from './source-registry.js';

/** The last argument of every gateway call. */
export interface CallOptions {
  /** Aborts the call (`ERR_ABORTED`; `ERR_TIMEOUT` when the reason is a `TimeoutError`). */
  signal?: AbortSignal;
}

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
  readonly #pool: AgentPool;
  readonly #ctx: CallContext;
  readonly #sources = new SourceRegistry();
  readonly #registry = new HandlerRegistry();
  readonly #inFlight = new Set<Promise<unknown>>();
  #dispatcher: EventDispatcher | null;
  #closing: Promise<void> | undefined;

  constructor(options: AsyncFHIRGatewayOptions = {}) {
    this.#options = checkGatewayOptions(options);
    this.#pool = new AgentPool(this.#options.pool);
    this.#ctx = { pool: this.#pool, maxResponseBytes: this.#options.maxResponseBytes };
    this.#dispatcher = this.#options.events ? (this.#options.dispatcher ?? localHandler) : null;
  }

  /**
   * Registers (or replaces) a source. The connection string is checked at once (`ERR_CONNECTION_STRING`)
   * and a key file read at once (`ERR_AUTH_KEY`); nothing is stored on failure. Replacing a source
   * closes its old connections.
   *
   * @example
   * ```ts
   * gw.addSource('local', 'fhir://localhost:8080/fhir/');
   * ```
   */
  addSource(name: string, connectionString: string): void {
    this.#live();
    if (typeof name !== 'string' || name === '' || name.length > 100) throw new TypeError('name must be a string of 1 to 100 characters');
    const config = parseConnectionString(connectionString);
    const timeoutMs = config.timeoutMs ?? this.#options.timeoutMs;
    const tokens = config.auth === undefined ? undefined : new TokenManager(config.auth, { send: (url, o) => this.#pool.request(url, o), timeoutMs });
    const old = this.#sources.add({ name, baseUrl: config.baseUrl, origin: config.origin, timeoutMs, tokens, requests: 0, errors: 0 });
    if (old !== undefined && !this.#sources.all().some((s) => s.name !== name && s.origin === old.origin)) this.#pool.retire(old.origin);
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
    return this.#sources.names;
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
    return this.#sources.get(name).baseUrl;
  }

  /**
   * Creates a resource; returns it as the server stored it (with its id). Sends
   * `Prefer: return=representation`; when the server answers with an empty body, the `Location` is read.
   *
   * @example
   * ```ts
   * const p = await gw.create({ resourceType: 'Patient', name: [{ family: 'Doe' }] }, 'epic');
   * ```
   */
  create<R extends Resource>(resource: R, source?: string, options?: CallOptions): Promise<R> {
    return this.#run(options, async (signal) => {
      const { type } = checkResource(resource, false, 'create');
      const src = this.#sources.get(source);
      const res = await this.#call(src, { method: 'POST', url: resourceUrl(src.baseUrl, type), body: JSON.stringify(resource), headers: { prefer: 'return=representation' }, operation: 'create', reference: type, signal });
      const created = (await this.#resourceOf(src, res, type, 'create', undefined, signal)) as R;
      this.#emit(type, 'create', src, created.id);
      return created;
    });
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
    return this.#run(options, async (signal) => (await this.#read(type, id, source, signal)).resource as unknown as ResourceOf<T>);
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
  update<R extends Resource>(resource: R, source?: string, options?: CallOptions): Promise<R> {
    return this.#run(options, (signal) => this.#update(resource, source, signal, undefined) as Promise<R>);
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
    return this.#run(options, async (signal) => {
      const t = checkType(type);
      const i = checkId(id);
      const src = this.#sources.get(source);
      const res = await this.#call(src, { method: 'DELETE', url: resourceUrl(src.baseUrl, t, i), operation: 'delete', reference: `${t}/${i}`, signal, expected: [404, 410] });
      if (res.status === 404 || res.status === 410) return false;
      this.#emit(t, 'delete', src, i);
      return true;
    });
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
    return this.#run(options, async (signal) => {
      const t = checkType(type);
      const src = this.#sources.get(source);
      const url = resourceUrl(src.baseUrl, t);
      url.search = searchQuery(params);
      const res = await this.#call(src, { method: 'GET', url, operation: 'search', reference: t, signal });
      const bundle = readResource(res, 'Bundle', `search ${t}`) as unknown as Bundle<ResourceOf<T>>;
      const matches = (bundle.entry ?? []).filter((e) => e.search?.mode === undefined || e.search.mode === 'match').length;
      this.#emit(t, 'search', src, undefined, { result_count: matches });
      return bundle;
    });
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
    if (typeof fnOrOptions !== 'function') {
      return this.#run(fnOrOptions, async (signal) => {
        const read = await this.#read(type, id, source, signal);
        const save = (r: ResourceOf<T>): Promise<ResourceOf<T>> => this.#run(fnOrOptions, (s) => this.#save(read, r, source, s)) as Promise<ResourceOf<T>>;
        return new ModifyHandle(read.resource as unknown as ResourceOf<T>, save);
      });
    }
    return this.#run(options, async (signal) => {
      for (let attempt = 1; ; attempt++) {
        const read = await this.#read(type, id, source, signal);
        const resource = read.resource as unknown as ResourceOf<T>;
        const changed = (await fnOrOptions(resource)) ?? resource;
        try {
          return (await this.#save(read, changed, source, signal)) as ResourceOf<T>;
        } catch (err) {
          if (!(err instanceof FhirgateError && err.code === 'ERR_CONFLICT') || attempt >= MODIFY_ATTEMPTS) throw err;
        }
      }
    });
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
    return poolStatus(this.#pool.status(), this.#sources.all());
  }

  /** Registers the transform handler of `type` and returns it. */
  transform<T extends ResourceType>(type: T, handler: TransformHandler<T>): TransformHandler<T>;
  /** Returns a wrapper that registers the handler it is applied to. */
  transform<T extends ResourceType>(type: T): <H extends TransformHandler<T>>(handler: H) => H;
  /**
   * Transform handlers become `GET <prefix>/transform/<type>/<id>` when the gateway is mounted.
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
   * Aggregate handlers become `GET <prefix>/aggregate/<type>?patient_id=…&sources=…` when mounted.
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
    if (this.#options.events) this.#dispatcher = dispatcher;
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
    this.#closing ??= (async () => {
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
      await this.#pool.close();
    })();
    return this.#closing;
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The gateway's face for `createServiceAPI().registerGateway()`. */
  [MOUNT](): Mountable {
    return gatewayMountable({
      className: 'AsyncFHIRGateway',
      registry: this.#registry,
      sourceNames: () => this.sourceNames,
      poolStatus: () => ({ ...this.getPoolStatus() }),
      emit: (name: string, payload: EventPayload) => this.#dispatcher?.emit(name, payload),
      useEvents: (dispatcher: EventDispatcher | null) => this.useEvents(dispatcher),
      eventsEnabled: () => this.#dispatcher !== null,
      close: () => this.close(),
    });
  }

  #live(): void {
    if (this.#closing !== undefined) throw new FhirgateError('ERR_CLOSED', 'the gateway is closed');
  }

  /** Runs one public call: closed check, option check, in-flight tracking for `close()`. */
  #run<T>(options: CallOptions | undefined, body: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    if (options !== undefined && (typeof options !== 'object' || options === null)) throw new TypeError('options must be an object');
    const signal = options?.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError('options.signal must be an AbortSignal');
    const pending = (async () => {
      this.#live();
      return body(signal);
    })();
    this.#inFlight.add(pending);
    const forget = (): void => void this.#inFlight.delete(pending);
    pending.then(forget, forget);
    return pending;
  }

  #call(source: Source, call: FhirCall): Promise<HttpResponse> {
    return callFhir(this.#ctx, source, call);
  }

  async #read(type: ResourceType, id: string, source: string | undefined, signal: AbortSignal | undefined): Promise<Versioned> {
    const t = checkType(type);
    const i = checkId(id);
    const src = this.#sources.get(source);
    const res = await this.#call(src, { method: 'GET', url: resourceUrl(src.baseUrl, t, i), operation: 'read', reference: `${t}/${i}`, signal });
    const resource = readResource(res, t, `read ${t}/${i}`);
    this.#emit(t, 'read', src, i);
    return { resource, original: JSON.stringify(resource), etag: etagOf(res, resource) };
  }

  async #update(resource: unknown, source: string | undefined, signal: AbortSignal | undefined, ifMatch: string | undefined): Promise<Record<string, unknown>> {
    const { type, id } = checkResource(resource, true, 'update');
    const src = this.#sources.get(source);
    const headers: Record<string, string> = { prefer: 'return=representation', ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) };
    const call = { method: 'PUT', url: resourceUrl(src.baseUrl, type, id), body: JSON.stringify(resource), headers, operation: 'update', reference: `${type}/${id}`, signal } as const;
    let res: HttpResponse;
    try {
      res = await this.#call(src, call);
    } catch (err) {
      if (ifMatch === undefined || !(err instanceof FhirgateError) || err.status !== 412) throw err;
      throw new FhirgateError('ERR_CONFLICT', `update ${type}/${id}: the resource changed since it was read (412)`, { status: 412, cause: err });
    }
    const saved = await this.#resourceOf(src, res, type, 'update', call.url, signal);
    this.#emit(type, 'update', src, id);
    return saved;
  }

  /** Saves a modified resource unless it is unchanged. */
  async #save(read: Versioned, resource: unknown, source: string | undefined, signal: AbortSignal | undefined): Promise<unknown> {
    if (JSON.stringify(resource) === read.original) return resource;
    return this.#update(resource, source, signal, read.etag);
  }

  /**
   * The resource in a 2xx answer. When the body is empty or an OperationOutcome (a server that ignores
   * `Prefer: return=representation`), the resource is read back from `Content-Location`/`Location`,
   * else from `fallback`; only on the source's origin.
   */
  async #resourceOf(src: Source, res: HttpResponse, type: ResourceType, operation: string, fallback: URL | undefined, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    const what = `${operation} ${type}`;
    if (res.body.length > 0 && !isOutcome(res)) return readResource(res, type, what);
    const location = res.headers['content-location'] ?? res.headers.location;
    const url = typeof location === 'string' ? new URL(location, `${src.baseUrl}/`) : fallback;
    if (url === undefined) {
      throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with neither the resource nor a Location`, { status: res.status });
    }
    const back = await this.#call(src, { method: 'GET', url, operation, reference: `${type} (Location)`, signal });
    return readResource(back, type, what);
  }

  #emit(type: ResourceType, operation: string, source: Source, id: string | undefined, extra: EventPayload = {}): void {
    this.#dispatcher?.emit(`fhir.${type.toLowerCase()}.${operation}`, { resource_type: type, resource_id: id, source: source.name, operation, ...extra });
  }
}

interface Versioned {
  resource: Record<string, unknown>;
  /** The resource as read, serialised: a save of an unchanged resource is skipped. */
  original: string;
  etag: string | undefined;
}

function isOutcome(res: HttpResponse): boolean {
  try {
    return (JSON.parse(res.body.toString('utf8')) as { resourceType?: unknown } | null)?.resourceType === 'OperationOutcome';
  } catch {
    return false;
  }
}

function etagOf(res: HttpResponse, resource: Record<string, unknown>): string | undefined {
  const header = res.headers.etag;
  if (typeof header === 'string' && header !== '') return header;
  const version = (resource.meta as { versionId?: unknown } | undefined)?.versionId;
  return typeof version === 'string' ? `W/"${version}"` : undefined;
}
