/**
 * `AsyncFHIRGateway`: many named FHIR servers behind one Promise-based interface and one keep-alive
 * connection pool.
 * @module
 */
import { parseConnectionString, TokenManager } from '../auth/index.js';
import { FhirgateError } from '../errors.js';
import type { EventPayload } from '../events/types.js';
import type { Bundle, Resource, ResourceOf, ResourceType } from '../fhir/index.js';
import { AgentPool } from '../http/index.js';
import type { HttpResponse } from '../http/index.js';
import { MOUNT } from '../mount/index.js';
import type { Mountable } from '../mount/index.js';
import { callFhir, callScope, readResource } from './fhir-call.js';
import type { CallContext, CallScope, FhirCall } from './fhir-call.js';
import { HandlerHost } from './handler-host.js';
import type { SearchParams } from './handlers/index.js';
import { ifNoneExistHeader } from './if-none-exist.js';
import { ModifyHandle, MODIFY_ATTEMPTS } from './modify.js';
import type { ModifyFn } from './modify.js';
import { checkGatewayOptions } from './options.js';
import type { AsyncFHIRGatewayOptions, GatewayOptions } from './options.js';
import { checkPagingOptions, isMatch, matchingResources, nextPageUrl } from './paging.js';
import type { PageOptions, PagingLimits, SearchAllOptions } from './paging.js';
import { poolStatus } from './pool-status.js';
import type { PoolStatus } from './pool-status.js';
import { checkRequestBundle, failedEntries } from './request-bundle.js';
import type { BundleKind } from './request-bundle.js';
import { checkId, checkResource, checkType, resourceUrl } from './resource-path.js';
import { searchQuery } from './search-params.js';
import { SourceRegistry } from './source-registry.js';
import type { Source } from './source-registry.js';

/** The last argument of every gateway call. */
export interface CallOptions {
  /** Aborts the call (`ERR_ABORTED`; `ERR_TIMEOUT` when the reason is a `TimeoutError`). */
  signal?: AbortSignal;
  /** `false` sends each request of this call once, whatever the gateway's retry options. */
  retry?: boolean;
}

/** Options of `create`. */
export interface CreateOptions extends CallOptions {
  /**
   * Makes the create conditional (`If-None-Exist`): the query part of a search (`identifier=sys|123`,
   * no leading `?`) or search parameters. The server creates only when nothing matches; one match is
   * returned as it is (200), several are `ERR_FHIR_HTTP` 412.
   */
  ifNoneExist?: string | SearchParams;
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
export class AsyncFHIRGateway extends HandlerHost implements AsyncDisposable {
  readonly #options: GatewayOptions;
  readonly #pool: AgentPool;
  readonly #ctx: CallContext;
  readonly #sources = new SourceRegistry();
  /** Public calls in flight; `close()` waits for 0. */
  #inFlight = 0;
  /** Resolves the wait of `close()` when `#inFlight` reaches 0. */
  #idle: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: AsyncFHIRGatewayOptions = {}) {
    const checked = checkGatewayOptions(options);
    super(checked);
    this.#options = checked;
    this.#pool = new AgentPool(this.#options.pool);
    this.#ctx = { pool: this.#pool, maxResponseBytes: this.#options.maxResponseBytes, retry: this.#options.retry };
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
    const condition = options?.ifNoneExist === undefined ? undefined : ifNoneExistHeader(options.ifNoneExist);
    return this.#run(options, async (scope) => {
      const { type } = checkResource(resource, false, 'create');
      const src = this.#sources.get(source);
      const headers = { prefer: 'return=representation', ...(condition === undefined ? {} : { 'if-none-exist': condition }) };
      const res = await this.#call(src, { method: 'POST', url: resourceUrl(src.baseUrl, type), body: JSON.stringify(resource), headers, operation: 'create', reference: type, ...scope });
      const created = (await this.#resourceOf(src, res, type, 'create', undefined, scope)) as unknown as ResourceOf<R['resourceType']>;
      this.#emit(type, 'create', src, created.id, condition === undefined ? undefined : { created: res.status === 201 });
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
    return this.#run(options, (scope) => this.#read(type, id, source, scope, false)) as unknown as Promise<ResourceOf<T>>;
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
    return this.#run(options, async (scope) => (await this.#update(resource, source, scope, undefined)) as unknown as ResourceOf<R['resourceType']>);
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
    return this.#run(options, async (scope) => {
      const t = checkType(type);
      const i = checkId(id);
      const src = this.#sources.get(source);
      const res = await this.#call(src, { method: 'DELETE', url: resourceUrl(src.baseUrl, t, i), operation: 'delete', reference: `${t}/${i}`, ...scope, expected: [404, 410] });
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
    return this.#run(options, async (scope) => {
      const t = checkType(type);
      const src = this.#sources.get(source);
      return this.#searchPage(src, t, searchUrl(src, t, params), {}, scope) as Promise<Bundle<ResourceOf<T>>>;
    });
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
    return this.#pages(type, params, source, checkPagingOptions(options)) as AsyncGenerator<Bundle<ResourceOf<T>>, void, undefined>;
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
    const limits = checkPagingOptions(options);
    const pages = this.#pages(type, params, source, limits);
    return (async function* matches() {
      let count = 0;
      for await (const page of pages) {
        for (const resource of matchingResources(page)) {
          yield resource as ResourceOf<T>;
          if (++count >= limits.maxResources) return;
        }
      }
    })();
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
    return this.#run(options, (scope) => this.#postBundle('transaction', bundle, source, scope));
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
    return this.#run(options, (scope) => this.#postBundle('batch', bundle, source, scope));
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
      return this.#run(fnOrOptions, async (scope) => {
        const read = await this.#read(type, id, source, scope);
        const save = (r: ResourceOf<T>): Promise<ResourceOf<T>> => this.#run(fnOrOptions, (s) => this.#save(read, r, source, s)) as Promise<ResourceOf<T>>;
        return new ModifyHandle(read.resource as unknown as ResourceOf<T>, save);
      });
    }
    return this.#run(options, async (scope) => {
      for (let attempt = 1; ; attempt++) {
        const read = await this.#read(type, id, source, scope);
        const resource = read.resource as unknown as ResourceOf<T>;
        const changed = (await fnOrOptions(resource)) ?? resource;
        try {
          return (await this.#save(read, changed, source, scope)) as ResourceOf<T>;
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
      if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
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
    return this.mountable({
      className: 'AsyncFHIRGateway',
      sourceNames: () => this.sourceNames,
      poolStatus: () => ({ ...this.getPoolStatus() }),
      close: () => this.close(),
    });
  }

  #live(): void {
    if (this.#closing !== undefined) throw new FhirgateError('ERR_CLOSED', 'the gateway is closed');
  }

  /** Runs one public call: closed check, option check, in-flight tracking for `close()`. */
  #run<T>(options: CallOptions | undefined, body: (scope: CallScope) => Promise<T>): Promise<T> {
    if (options !== undefined && (typeof options !== 'object' || options === null)) throw new TypeError('options must be an object');
    if (options?.signal !== undefined && !(options.signal instanceof AbortSignal)) throw new TypeError('options.signal must be an AbortSignal');
    return this.#tracked(body, callScope(options));
  }

  /** Runs `body` counted in `#inFlight` (counted at once: the part before its first `await` is synchronous). */
  async #tracked<T>(body: (scope: CallScope) => Promise<T>, scope: CallScope): Promise<T> {
    this.#live();
    this.#inFlight++;
    try {
      return await body(scope);
    } finally {
      if (--this.#inFlight === 0) this.#idle?.();
    }
  }

  /** The pages of a search; each fetch is one public call (closed check, signal, in-flight tracking). */
  async *#pages(type: ResourceType, params: SearchParams, source: string | undefined, limits: PagingLimits): AsyncGenerator<Bundle> {
    const t = checkType(type);
    const src = this.#sources.get(source);
    let url = searchUrl(src, t, params);
    const seen = new Set([url.href]);
    const options = limits.signal === undefined ? {} : { signal: limits.signal };
    for (let page = 1; ; page++) {
      const at = url;
      const bundle = await this.#run(options, (scope) => this.#searchPage(src, t, at, { page }, scope));
      yield bundle;
      const next = page < limits.maxPages ? nextPageUrl(bundle, src, seen, t) : undefined;
      if (next === undefined) return;
      url = next;
    }
  }

  /** Fetches one page of a search and sends its event. */
  async #searchPage(src: Source, type: ResourceType, url: URL, extra: EventPayload, scope: CallScope): Promise<Bundle> {
    const res = await this.#call(src, { method: 'GET', url, operation: 'search', reference: type, ...scope });
    const bundle = readResource(res, 'Bundle', `search ${type}`) as unknown as Bundle;
    const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
    this.#emit(type, 'search', src, undefined, () => ({ ...extra, result_count: entries.filter(isMatch).length }));
    return bundle;
  }

  async #postBundle(kind: BundleKind, bundle: Bundle, source: string | undefined, scope: CallScope): Promise<Bundle> {
    const body = checkRequestBundle(bundle, kind);
    const src = this.#sources.get(source);
    const res = await this.#call(src, { method: 'POST', url: new URL(src.baseUrl), body: JSON.stringify(body), operation: kind, reference: 'Bundle', ...scope });
    const answer = readResource(res, 'Bundle', kind) as unknown as Bundle;
    this.#emit('Bundle', kind, src, undefined, () => ({ entry_count: body.entry?.length ?? 0, error_count: failedEntries(answer) }));
    return answer;
  }

  #call(source: Source, call: FhirCall): Promise<HttpResponse> {
    return callFhir(this.#ctx, source, call);
  }

  /** GETs `type/id` and sends its event: the resource, or with `forSave` what a versioned save needs too. */
  async #read(type: ResourceType, id: string, source: string | undefined, scope: CallScope, forSave: false): Promise<Record<string, unknown>>;
  async #read(type: ResourceType, id: string, source: string | undefined, scope: CallScope, forSave?: true): Promise<Versioned>;
  async #read(type: ResourceType, id: string, source: string | undefined, scope: CallScope, forSave = true): Promise<Versioned | Record<string, unknown>> {
    const t = checkType(type);
    const i = checkId(id);
    const src = this.#sources.get(source);
    const res = await this.#call(src, { method: 'GET', url: resourceUrl(src.baseUrl, t, i), operation: 'read', reference: `${t}/${i}`, ...scope });
    const resource = readResource(res, t, `read ${t}/${i}`);
    this.#emit(t, 'read', src, i);
    if (!forSave) return resource;
    return { resource, original: JSON.stringify(resource), etag: etagOf(res, resource) };
  }

  async #update(resource: unknown, source: string | undefined, scope: CallScope, ifMatch: string | undefined): Promise<Record<string, unknown>> {
    const { type, id } = checkResource(resource, true, 'update');
    const src = this.#sources.get(source);
    const headers: Record<string, string> = { prefer: 'return=representation', ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) };
    const call = { method: 'PUT', url: resourceUrl(src.baseUrl, type, id), body: JSON.stringify(resource), headers, operation: 'update', reference: `${type}/${id}`, ...scope } as const;
    let res: HttpResponse;
    try {
      res = await this.#call(src, call);
    } catch (err) {
      if (ifMatch === undefined || !(err instanceof FhirgateError) || err.status !== 412) throw err;
      throw new FhirgateError('ERR_CONFLICT', `update ${type}/${id}: the resource changed since it was read (412)`, { status: 412, cause: err });
    }
    const saved = await this.#resourceOf(src, res, type, 'update', call.url, scope);
    this.#emit(type, 'update', src, id);
    return saved;
  }

  /** Saves a modified resource unless it is unchanged. */
  async #save(read: Versioned, resource: unknown, source: string | undefined, scope: CallScope): Promise<unknown> {
    if (JSON.stringify(resource) === read.original) return resource;
    return this.#update(resource, source, scope, read.etag);
  }

  /**
   * The resource in a 2xx answer. When the body is empty or an OperationOutcome (a server that ignores
   * `Prefer: return=representation`), the resource is read back from `Content-Location`/`Location`,
   * else from `fallback`; only on the source's origin.
   */
  async #resourceOf(src: Source, res: HttpResponse, type: ResourceType, operation: string, fallback: URL | undefined, scope: CallScope): Promise<Record<string, unknown>> {
    const what = `${operation} ${type}`;
    if (res.body.length > 0 && !isOutcome(res)) return readResource(res, type, what);
    const location = [res.headers['content-location'], res.headers.location].find((l) => typeof l === 'string' && l.trim() !== '')?.trim();
    const base = `${src.baseUrl}/`;
    if (location !== undefined && !URL.canParse(location, base)) {
      throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with a Location that is not a URL`, { status: res.status });
    }
    const url = location === undefined ? fallback : new URL(location, base);
    if (url === undefined) {
      throw new FhirgateError('ERR_FHIR_RESPONSE', `${what}: the server answered ${res.status} with neither the resource nor a Location`, { status: res.status });
    }
    const back = await this.#call(src, { method: 'GET', url, operation, reference: `${type} (Location)`, ...scope });
    return readResource(back, type, what);
  }

  /**
   * Sends `fhir.<type>.<operation>`. No payload is built when nobody would receive it (events off, or a
   * local dispatcher without a matching handler); `extra` facts that cost work to count (a search page's
   * matches, a bundle's failed entries) come as a function, called only then too.
   */
  #emit(type: ResourceType, operation: string, source: Source, id: string | undefined, extra?: EventPayload | (() => EventPayload)): void {
    const name = `fhir.${type.toLowerCase()}.${operation}`;
    if (!this.wantsEvent(name)) return;
    this.emitEvent(name, { resource_type: type, resource_id: id, source: source.name, operation, ...(typeof extra === 'function' ? extra() : extra) });
  }
}

interface Versioned {
  resource: Record<string, unknown>;
  /** The resource as read, serialised: a save of an unchanged resource is skipped. */
  original: string;
  etag: string | undefined;
}

/** `[base]/[type]?params` of a search's first page. */
function searchUrl(src: Source, type: ResourceType, params: SearchParams): URL {
  const url = resourceUrl(src.baseUrl, type);
  url.search = searchQuery(params);
  return url;
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
