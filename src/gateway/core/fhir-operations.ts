/**
 * The requests each gateway operation sends and what it makes of the answers: read, create, update
 * (with `If-Match` for a versioned save), delete, one search page, a transaction or batch Bundle; each
 * sends its `fhir.<type>.<operation>` event. `AsyncFHIRGateway` wraps these in its public calls
 * (option checks, in-flight tracking).
 * @module
 */
import { FhirgateError } from '../../errors.js';
import type { EventPayload } from '../../events/types.js';
import type { Bundle, ResourceType } from '../../fhir/index.js';
import type { HTTPResponse, HTTPTarget } from '../../http/request-options.js';
import { callFHIR, readResource } from './fhir-call.js';
import type { CallContext, CallScope, FHIRCall } from './fhir-call.js';
import type { GatewayEvents } from '../gateway-face.js';
import type { SearchParams } from './search-params.js';
import { isMatch } from './paging.js';
import { etagOf, resourceOf } from './read-back.js';
import type { Versioned } from './read-back.js';
import { checkRequestBundle, failedEntries } from './request-bundle.js';
import type { BundleKind } from './request-bundle.js';
import { checkId, checkResource, checkType, resourceUrl } from './resource-path.js';
import { searchQuery } from './search-params.js';
import type { Source, SourceRegistry } from './source-registry.js';

/**
 * The FHIR operations of one gateway, over its transport, its sources and its events.
 *
 * @example
 * ```ts
 * const ops = new FHIROperations({ pool, maxResponseBytes, retry }, sources, events);
 * const patient = await ops.read('Patient', '123', 'epic', { signal: undefined, retry: true }, false);
 * ```
 */
export class FHIROperations {
  readonly #ctx: CallContext;
  readonly #sources: SourceRegistry;
  readonly #events: GatewayEvents;

  constructor(ctx: CallContext, sources: SourceRegistry, events: GatewayEvents) {
    this.#ctx = ctx;
    this.#sources = sources;
    this.#events = events;
  }

  /** POSTs a resource (conditionally with `If-None-Exist`), returns it as stored and sends its event. */
  async create(resource: unknown, source: string | undefined, condition: string | undefined, scope: CallScope): Promise<Record<string, unknown>> {
    const { type } = checkResource(resource, false, 'create');
    const src = this.#sources.get(source);
    const headers = { prefer: 'return=representation', ...(condition === undefined ? {} : { 'if-none-exist': condition }) };
    const res = await this.#call(src, { method: 'POST', url: resourceUrl(src.base, type), body: JSON.stringify(resource), headers, operation: 'create', reference: type, ...scope });
    const created = await this.#resourceOf(src, res, type, undefined, scope, 'create');
    this.#emit(type, 'create', src, created.id as string | undefined, condition === undefined ? undefined : { created: res.status === 201 });
    return created;
  }

  /** DELETEs a resource: `true` when deleted (and its event sent), `false` when it was not there (404, 410). */
  async delete(type: ResourceType, id: string, source: string | undefined, scope: CallScope): Promise<boolean> {
    const t = checkType(type);
    const i = checkId(id);
    const src = this.#sources.get(source);
    const res = await this.#call(src, { method: 'DELETE', url: resourceUrl(src.base, t, i), operation: 'delete', reference: `${t}/${i}`, ...scope, expected: [404, 410] });
    if (res.status === 404 || res.status === 410) return false;
    this.#emit(t, 'delete', src, i);
    return true;
  }

  /** The first page of a search (see {@link searchPage}). */
  search(type: ResourceType, params: SearchParams, source: string | undefined, scope: CallScope): Promise<Bundle> {
    const t = checkType(type);
    const src = this.#sources.get(source);
    return this.searchPage(src, t, searchUrl(src, t, params), {}, scope);
  }

  /** Fetches one page of a search and sends its event. */
  async searchPage(src: Source, type: ResourceType, url: URL, extra: EventPayload, scope: CallScope): Promise<Bundle> {
    const res = await this.#call(src, { method: 'GET', url, operation: 'search', reference: type, ...scope });
    const bundle = readResource(res, 'Bundle', `search ${type}`) as unknown as Bundle;
    const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
    this.#emit(type, 'search', src, undefined, () => ({ ...extra, result_count: entries.filter(isMatch).length }));
    return bundle;
  }

  /** POSTs a transaction or batch Bundle to the source's base, returns the response Bundle and sends its event. */
  async postBundle(kind: BundleKind, bundle: Bundle, source: string | undefined, scope: CallScope): Promise<Bundle> {
    const body = checkRequestBundle(bundle, kind);
    const src = this.#sources.get(source);
    const res = await this.#call(src, { method: 'POST', url: new URL(src.baseUrl), body: JSON.stringify(body), operation: kind, reference: 'Bundle', ...scope });
    const answer = readResource(res, 'Bundle', kind) as unknown as Bundle;
    this.#emit('Bundle', kind, src, undefined, () => ({ entry_count: body.entry?.length ?? 0, error_count: failedEntries(answer) }));
    return answer;
  }

  #call(source: Source, call: FHIRCall): Promise<HTTPResponse> {
    return callFHIR(this.#ctx, source, call);
  }

  /** GETs `type/id` and sends its event: the resource, or with `forSave` what a versioned save needs too. */
  async read(type: ResourceType, id: string, source: string | undefined, scope: CallScope, forSave: false): Promise<Record<string, unknown>>;
  async read(type: ResourceType, id: string, source: string | undefined, scope: CallScope, forSave?: true): Promise<Versioned>;
  async read(type: ResourceType, id: string, source: string | undefined, scope: CallScope, forSave = true): Promise<Versioned | Record<string, unknown>> {
    const t = checkType(type);
    const i = checkId(id);
    const src = this.#sources.get(source);
    const res = await this.#call(src, { method: 'GET', url: resourceUrl(src.base, t, i), operation: 'read', reference: `${t}/${i}`, ...scope });
    const resource = readResource(res, t, `read ${t}/${i}`);
    this.#emit(t, 'read', src, i);
    if (!forSave) return resource;
    return { resource, original: JSON.stringify(resource), etag: etagOf(res, resource) };
  }

  async update(resource: unknown, source: string | undefined, scope: CallScope, ifMatch: string | undefined): Promise<Record<string, unknown>> {
    const { type, id } = checkResource(resource, true, 'update');
    const src = this.#sources.get(source);
    const headers: Record<string, string> = { prefer: 'return=representation', ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) };
    const call = { method: 'PUT', url: resourceUrl(src.base, type, id), body: JSON.stringify(resource), headers, operation: 'update', reference: `${type}/${id}`, ...scope } as const;
    let res: HTTPResponse;
    try {
      res = await this.#call(src, call);
    } catch (err) {
      if (ifMatch === undefined || !(err instanceof FhirgateError) || err.status !== 412) throw err;
      throw new FhirgateError('ERR_CONFLICT', `update ${type}/${id}: the resource changed since it was read (412)`, { status: 412, cause: err });
    }
    const saved = await this.#resourceOf(src, res, type, call.url, scope, 'update');
    this.#emit(type, 'update', src, id);
    return saved;
  }

  /** Saves a modified resource unless it is unchanged. */
  async save(read: Versioned, resource: unknown, source: string | undefined, scope: CallScope): Promise<unknown> {
    if (JSON.stringify(resource) === read.original) return resource;
    return this.update(resource, source, scope, read.etag);
  }

  /** The resource in a 2xx answer, read back from its location when the body does not hold it (see {@link resourceOf}). */
  #resourceOf(src: Source, res: HTTPResponse, type: ResourceType, fallback: HTTPTarget | undefined, scope: CallScope, operation: string): Promise<Record<string, unknown>> {
    return resourceOf(res, { baseUrl: src.baseUrl, type, operation, fallback }, (url) => this.#call(src, { method: 'GET', url, operation, reference: `${type} (Location)`, ...scope }));
  }

  /**
   * Sends `fhir.<type>.<operation>`. No payload is built when nobody would receive it (events off, or a
   * local dispatcher without a matching handler); `extra` facts that cost work to count (a search page's
   * matches, a bundle's failed entries) come as a function, called only then too.
   */
  #emit(type: ResourceType, operation: string, source: Source, id: string | undefined, extra?: EventPayload | (() => EventPayload)): void {
    const name = `fhir.${type.toLowerCase()}.${operation}`;
    if (!this.#events.wants(name)) return;
    this.#events.emit(name, { resource_type: type, resource_id: id, source: source.name, operation, ...(typeof extra === 'function' ? extra() : extra) });
  }
}

/**
 * `[base]/[type]?params` of a search's first page.
 *
 * @example
 * ```ts
 * searchUrl(source, 'Patient', { family: 'Doe' }).href; // 'https://h/r4/Patient?family=Doe'
 * ```
 */
export function searchUrl(src: Source, type: ResourceType, params: SearchParams): URL {
  const url = new URL(`${src.baseUrl}/${type}`);
  url.search = searchQuery(params);
  return url;
}
