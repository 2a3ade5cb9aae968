/**
 * The gateway's engine: one pool, the sources, the event gate and the count of calls in flight, and
 * the FHIR operations over them (read, create, update, delete, one search page, a transaction or batch
 * Bundle), each sending its `fhir.<type>.<operation>` event. Every public call of `AsyncFHIRGateway`
 * is one call of an engine method: its options checked once, counted in flight (so that `close()`
 * lets it finish), then sent through {@link callFHIR}.
 * @module
 */
import { inCallTrace } from '../../lib/trace-spans.js';
import { FhirgateError } from '../../errors.js';
import type { EventPayload } from '../../events/types.js';
import type { Bundle, ResourceType } from '../../fhir/index.js';
import { AgentPool } from '../../http/agent-pool.js';
import type { HTTPResponse, HTTPTarget } from '../../http/request-options.js';
import { callScope } from './call-options.js';
import type { CallOptions, CallScope, CreateOptions } from './call-options.js';
import { exchange } from './exchange.js';
import type { FHIRExchangeRequest, FHIRExchangeResponse } from './exchange.js';
import { callFHIR } from './fhir-call.js';
import type { CallContext, FHIRCall } from './fhir-call.js';
import { GatewayEvents } from './gateway-events.js';
import { ifNoneExistHeader } from './if-none-exist.js';
import { InFlightCalls } from './in-flight.js';
import type { GatewayOptions } from './options.js';
import { isMatch } from './paging.js';
import { poolStatus } from './pool-status.js';
import type { PoolStatus } from './pool-status.js';
import { etagOf, resourceFromAnswer, resourceOf } from './read-back.js';
import type { Versioned } from './read-back.js';
import { checkRequestBundle, failedEntries } from './request-bundle.js';
import type { BundleKind } from './request-bundle.js';
import { checkId, checkResource, checkType, resourceUrl } from './resource-path.js';
import { searchTarget } from './search-params.js';
import type { SearchParams } from './search-params.js';
import type { SourceOptions } from './source-keys.js';
import { SourceRegistry } from './source-registry.js';
import type { Source } from './source-registry.js';
import { openSource, sourceSettings } from './source-settings.js';
import type { SourceSettings } from './source-settings.js';

/** One gateway's pool, sources, events, calls in flight and FHIR operations. */
export class GatewayEngine {
  /** The sources, in registration order. */
  readonly sources = new SourceRegistry();
  /** Where the gateway's events go. */
  readonly events: GatewayEvents;
  readonly #options: GatewayOptions;
  readonly #pool: AgentPool;
  readonly #ctx: CallContext;
  readonly #inFlight = new InFlightCalls();

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.events = new GatewayEvents(options);
    this.#pool = new AgentPool(options.pool);
    this.#ctx = { pool: this.#pool, maxResponseBytes: options.maxResponseBytes, retry: options.retry };
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#inFlight.closed;
  }

  /** Bytes of one answer at most (the gateway's `maxResponseBytes`). */
  get maxResponseBytes(): number {
    return this.#options.maxResponseBytes;
  }

  /** Throws `ERR_CLOSED` once {@link close} was called. */
  assertOpen(): void {
    this.#inFlight.assertOpen();
  }

  /**
   * Runs one public call made of several requests (`modify`): its options checked (`TypeError` naming
   * the option), then the closed check (`ERR_CLOSED`) and in-flight tracking for `close()`.
   */
  run<T>(options: CallOptions | undefined, body: (scope: CallScope) => Promise<T>, create = false): Promise<T> {
    const scope = callScope(options, create);
    // A call made outside any request (or other traced work) is a trace of its own: its token fetch, its
    // tries and its event share one trace id (and, with a tracer, one root span).
    return inCallTrace(this.#options.tracer, () => this.#inFlight.run(() => body(scope)));
  }

  /** Registers (or replaces) a source from its connection string and key options. */
  addSource(name: string, connectionString: string, options: SourceOptions | undefined): void {
    this.assertOpen();
    checkSourceName(name);
    this.#add(name, sourceSettings(connectionString, options, this.#options.timeoutMs));
  }

  /**
   * Registers (or replaces) a source from settings parsed already (by the sync gateway's calling thread);
   * replacing one retires its old origin's connections unless another source still uses it.
   */
  addSettings(name: string, settings: SourceSettings): void {
    this.assertOpen();
    checkSourceName(name);
    this.#add(name, settings);
  }

  #add(name: string, settings: SourceSettings): void {
    const old = this.sources.add(openSource(name, settings, this.#pool, this.#options.tokenStore));
    // A source's own TLS settings serve no other source: its connections (token endpoint's included) all go.
    if (old?.tls !== undefined) this.#pool.retireTLS(old.tls);
    else if (old !== undefined && !this.sources.all().some((s) => s.name !== name && s.origin === old.origin && s.tls === undefined)) this.#pool.retire(old.origin);
  }

  /** The named source (or the first), refused once closed (`ERR_CLOSED`): what a Bulk Data export starts from. */
  openSource(name: string | undefined): Source {
    this.assertOpen();
    return this.sources.get(name);
  }

  /** One request to a source, counted in flight: a Bulk Data export's requests. */
  send(source: Source, call: FHIRCall): Promise<HTTPResponse> {
    return this.#inFlight.run(() => callFHIR(this.#ctx, source, call));
  }

  /** A raw exchange with a source on the call path, any status an answer (see `AsyncFHIRGateway.exchange`). */
  exchange(source: string, request: FHIRExchangeRequest, options: CallOptions | undefined): Promise<FHIRExchangeResponse> {
    return this.run(options, (scope) => exchange(this.#ctx, this.events, this.sources.get(source), request, scope));
  }

  /** The pool's status with each source's counts. */
  poolStatus(): PoolStatus {
    return poolStatus(this.#pool.status(), this.sources.all());
  }

  /** POSTs a resource (conditionally with `If-None-Exist`), returns it as stored and sends its event. */
  create(resource: unknown, source: string | undefined, options: CreateOptions | undefined): Promise<Record<string, unknown>> {
    const condition = options?.ifNoneExist === undefined ? undefined : ifNoneExistHeader(options.ifNoneExist);
    return this.run(options, async (scope) => {
      const { type } = checkResource(resource, false, 'create');
      const src = this.sources.get(source);
      const headers = { prefer: 'return=representation', ...(condition === undefined ? {} : { 'if-none-exist': condition }) };
      const res = await callFHIR(this.#ctx, src, { method: 'POST', url: resourceUrl(src.base, type), body: JSON.stringify(resource), headers, operation: 'create', reference: type, ...scope });
      const created = await this.#resourceOf(src, res, type, undefined, scope, 'create');
      this.#emit(type, 'create', src, created.id as string | undefined, condition === undefined ? undefined : { created: res.status === 201 });
      return created;
    }, true);
  }

  /** GETs `type/id` and sends its event. */
  read(type: ResourceType, id: string, source: string | undefined, options: CallOptions | undefined): Promise<Record<string, unknown>> {
    return this.run(options, (scope) => this.#read(type, id, source, scope).then(resourceOnly));
  }

  /** GETs `type/id` within a running call and sends its event: the resource and what a versioned save needs. */
  async readVersioned(type: ResourceType, id: string, source: string | undefined, scope: CallScope): Promise<Versioned> {
    const { resource, res } = await this.#read(type, id, source, scope);
    return { resource, original: JSON.stringify(resource), etag: etagOf(res, resource) };
  }

  /** PUTs a resource (with `If-Match` for a versioned save), returns it as stored and sends its event. */
  update(resource: unknown, source: string | undefined, options: CallOptions | undefined): Promise<Record<string, unknown>> {
    return this.run(options, (scope) => this.#update(resource, source, scope, undefined));
  }

  /** Saves a modified resource within a running call (`If-Match` the version read), unless it is unchanged. */
  async save(read: Versioned, resource: unknown, source: string | undefined, scope: CallScope): Promise<unknown> {
    if (JSON.stringify(resource) === read.original) return resource;
    return this.#update(resource, source, scope, read.etag);
  }

  /** DELETEs a resource: `true` when deleted (and its event sent), `false` when it was not there (404, 410). */
  delete(type: ResourceType, id: string, source: string | undefined, options: CallOptions | undefined): Promise<boolean> {
    return this.run(options, async (scope) => {
      const t = checkType(type);
      const i = checkId(id);
      const src = this.sources.get(source);
      const res = await callFHIR(this.#ctx, src, { method: 'DELETE', url: resourceUrl(src.base, t, i), operation: 'delete', reference: `${t}/${i}`, ...scope, expected: [404, 410] });
      if (res.status === 404 || res.status === 410) return false;
      this.#emit(t, 'delete', src, i);
      return true;
    });
  }

  /** The first page of a search (see {@link searchPage}). */
  search(type: ResourceType, params: SearchParams, source: string | undefined, options: CallOptions | undefined): Promise<Bundle> {
    return this.run(options, (scope) => {
      const t = checkType(type);
      const src = this.sources.get(source);
      return this.#searchPage(src, t, searchTarget(src, t, params), {}, scope);
    });
  }

  /** Fetches one page of a search at `url` and sends its event with `page`. */
  searchPage(src: Source, type: ResourceType, url: URL, page: number, options: CallOptions): Promise<Bundle> {
    return this.run(options, (scope) => this.#searchPage(src, type, url, { page }, scope));
  }

  /** POSTs a transaction or batch Bundle to the source's base, returns the response Bundle and sends its event. */
  postBundle(kind: BundleKind, bundle: Bundle, source: string | undefined, options: CallOptions | undefined): Promise<Bundle> {
    return this.run(options, async (scope) => {
      const body = checkRequestBundle(bundle, kind);
      const src = this.sources.get(source);
      const res = await callFHIR(this.#ctx, src, { method: 'POST', url: new URL(src.baseUrl), body: JSON.stringify(body), operation: kind, reference: 'Bundle', ...scope });
      const answer = resourceFromAnswer(res, 'Bundle', kind) as unknown as Bundle;
      this.#emit('Bundle', kind, src, undefined, () => ({ entry_count: body.entry?.length ?? 0, error_count: failedEntries(answer) }));
      return answer;
    });
  }

  /** Lets the calls in flight finish, then closes every socket. Idempotent. */
  close(): Promise<void> {
    return this.#inFlight.close(() => this.#pool.close());
  }

  /**
   * A read's request, then its answer: one async frame (callFHIR's) per read waiting for a socket, not
   * three (heap per read queued for a socket, soak at 1,000 connections). The call's fields are written
   * out, not spread from `scope`: a spread's added properties went to a second backing store per call.
   */
  #read(type: ResourceType, id: string, source: string | undefined, scope: CallScope): Promise<ReadAnswer> {
    const t = checkType(type);
    const i = checkId(id);
    const src = this.sources.get(source);
    return callFHIR(this.#ctx, src, { method: 'GET', url: resourceUrl(src.base, t, i), operation: 'read', reference: `${t}/${i}`, signal: scope.signal, retry: scope.retry }).then((res) => {
      const resource = resourceFromAnswer(res, t, `read ${t}/${i}`);
      this.#emit(t, 'read', src, i);
      return { resource, res };
    });
  }

  /** A search page's request, then its answer (one async frame per page waiting for a socket, as {@link #read}). */
  #searchPage(src: Source, type: ResourceType, url: HTTPTarget, extra: EventPayload, scope: CallScope): Promise<Bundle> {
    return callFHIR(this.#ctx, src, { method: 'GET', url, operation: 'search', reference: type, signal: scope.signal, retry: scope.retry }).then((res) => {
      const bundle = resourceFromAnswer(res, 'Bundle', `search ${type}`) as unknown as Bundle;
      const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
      this.#emit(type, 'search', src, undefined, () => ({ ...extra, result_count: entries.filter(isMatch).length }));
      return bundle;
    });
  }

  async #update(resource: unknown, source: string | undefined, scope: CallScope, ifMatch: string | undefined): Promise<Record<string, unknown>> {
    const { type, id } = checkResource(resource, true, 'update');
    const src = this.sources.get(source);
    const headers: Record<string, string> = { prefer: 'return=representation', ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) };
    const call = { method: 'PUT', url: resourceUrl(src.base, type, id), body: JSON.stringify(resource), headers, operation: 'update', reference: `${type}/${id}`, ...scope } as const;
    let res: HTTPResponse;
    try {
      res = await callFHIR(this.#ctx, src, call);
    } catch (err) {
      if (ifMatch === undefined || !(err instanceof FhirgateError) || err.status !== 412) throw err;
      throw new FhirgateError('ERR_CONFLICT', `update ${type}/${id}: the resource changed since it was read (412)`, { status: 412, cause: err });
    }
    const saved = await this.#resourceOf(src, res, type, call.url, scope, 'update');
    this.#emit(type, 'update', src, id);
    return saved;
  }

  /** The resource in a 2xx answer, read back from its location when the body does not hold it (see {@link resourceOf}). */
  #resourceOf(src: Source, res: HTTPResponse, type: ResourceType, fallback: HTTPTarget | undefined, scope: CallScope, operation: string): Promise<Record<string, unknown>> {
    return resourceOf(res, { baseUrl: src.baseUrl, type, operation, fallback }, (url) => callFHIR(this.#ctx, src, { method: 'GET', url, operation, reference: `${type} (Location)`, ...scope }));
  }

  /**
   * Sends `fhir.<type>.<operation>`. No payload is built when nobody would receive it (events off, or a
   * local dispatcher without a matching handler); `extra` facts that cost work to count (a search page's
   * matches, a bundle's failed entries) come as a function, called only then too.
   */
  #emit(type: ResourceType, operation: string, source: Source, id: string | undefined, extra?: EventPayload | (() => EventPayload)): void {
    const name = `fhir.${type.toLowerCase()}.${operation}`;
    if (!this.events.wants(name)) return;
    this.events.emit(name, { resource_type: type, resource_id: id, source: source.name, operation, ...(typeof extra === 'function' ? extra() : extra) });
  }
}

/** A read's resource, and the answer it came in (for its version). */
interface ReadAnswer {
  resource: Record<string, unknown>;
  res: HTTPResponse;
}

/** `read()` hands back the resource alone; the answer is kept for versioned saves. */
const resourceOnly = (read: ReadAnswer): Record<string, unknown> => read.resource;

function checkSourceName(name: unknown): void {
  if (typeof name !== 'string' || name === '' || name.length > 100) throw new TypeError('name must be a string of 1 to 100 characters');
}
