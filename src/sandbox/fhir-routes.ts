/**
 * The FHIR REST interactions of the sandbox (FHIR R4 http.html): read, vread, create, update, delete,
 * search. Each answers on `res`; failures with a status are thrown as `FhirgateError` and become
 * OperationOutcomes in the server.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FhirgateError } from '../errors.js';
import { searchsetBundle, type Resource, type ResourceType } from '../fhir/index.js';
import type { SandboxContext } from './context.js';
import { parseResource, readBody } from './read-body.js';
import { sendJson, sendOutcome } from './reply.js';
import { runSearch } from './search.js';

/** The resource a request addresses: `[type]`, `[type]/[id]` or `[type]/[id]/_history/[vid]`. */
export interface Target {
  readonly type: ResourceType;
  readonly id?: string;
  readonly vid?: number;
}

function versionHeaders(ctx: SandboxContext, resource: Resource, withLocation: boolean): Record<string, string> {
  const vid = resource.meta?.versionId ?? '1';
  const lastUpdated = resource.meta?.lastUpdated;
  return {
    etag: `W/"${vid}"`,
    ...(lastUpdated === undefined ? {} : { 'last-modified': new Date(lastUpdated).toUTCString() }),
    ...(withLocation ? { location: `${ctx.fhirBase}/${resource.resourceType}/${resource.id}/_history/${vid}` } : {}),
  };
}

/** Answers a write with the body `Prefer: return=` asks for (default the resource). */
function sendWritten(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, status: number, resource: Resource): void {
  const headers = versionHeaders(ctx, resource, true);
  const prefer = /return=(minimal|representation|operationoutcome)/i.exec(String(req.headers.prefer ?? ''))?.[1]?.toLowerCase();
  if (prefer === 'minimal') sendJson(res, status, undefined, headers);
  else if (prefer === 'operationoutcome') sendOutcome(res, status, 'informational', `${resource.resourceType}/${resource.id} saved`, headers);
  else sendJson(res, status, resource, headers);
}

function notThere(target: Target, state: 'deleted' | 'missing'): FhirgateError {
  const ref = `${target.type}/${target.id}${target.vid === undefined ? '' : `/_history/${target.vid}`}`;
  return state === 'deleted'
    ? new FhirgateError('ERR_NOT_FOUND', `${ref} was deleted`, { status: 410 })
    : new FhirgateError('ERR_NOT_FOUND', `${ref} is not known`, { status: 404 });
}

/**
 * `GET [type]/[id]` and `GET [type]/[id]/_history/[vid]`: 200 with `ETag`, 404 unknown, 410 deleted.
 *
 * @example
 * ```ts
 * read(ctx, res, { type: 'Patient', id: 'a-patient-1', vid: 1 });
 * ```
 */
export function read(ctx: SandboxContext, res: ServerResponse, target: Target & { id: string }): void {
  const found = target.vid === undefined
    ? ctx.store.read(target.type, target.id)
    : ctx.store.vread(target.type, target.id, target.vid);
  if (found.state !== 'found') throw notThere(target, found.state);
  sendJson(res, 200, found.resource, versionHeaders(ctx, found.resource, false));
}

/**
 * `GET [type]?…` and `POST [type]/_search` (form body parameters join the query's): a searchset
 * Bundle with `total`, absolute `self`/`next` links and `fullUrl`s.
 *
 * @example
 * ```ts
 * await search(ctx, req, res, 'Patient', new URLSearchParams('family=Chalmers'));
 * ```
 */
export async function search(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, query: URLSearchParams): Promise<void> {
  const params = new URLSearchParams(query);
  if (req.method === 'POST') {
    for (const [k, v] of new URLSearchParams((await readBody(req, ctx.options.bodyLimit)).toString('utf8'))) params.append(k, v);
  }
  const page = runSearch(ctx.store, type, params);
  const url = (q: URLSearchParams): string => `${ctx.fhirBase}/${type}${q.size === 0 ? '' : `?${q}`}`;
  const links = [{ relation: 'self', url: url(page.self) }, ...(page.next === undefined ? [] : [{ relation: 'next', url: url(page.next) }])];
  sendJson(res, 200, searchsetBundle(page.resources, { total: page.total, links, baseUrl: ctx.fhirBase }));
}

/**
 * `POST [type]`: 201 with `Location` and `ETag`; an id in the body is replaced. `If-None-Exist` makes
 * it conditional (200 with the one match, 412 for several).
 *
 * @example
 * ```ts
 * await create(ctx, req, res, 'Patient');
 * ```
 */
export async function create(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, type: ResourceType): Promise<void> {
  const resource = parseResource(req.headers['content-type'], await readBody(req, ctx.options.bodyLimit), type);
  const condition = req.headers['if-none-exist'];
  if (condition !== undefined) {
    const existing = runSearch(ctx.store, type, new URLSearchParams(String(condition).replace(/^[^?]*\?/, '')));
    if (existing.total > 1) throw new FhirgateError('ERR_CONFLICT', 'If-None-Exist matches more than one resource', { status: 412 });
    const [match] = existing.resources;
    if (match !== undefined) return sendWritten(ctx, req, res, 200, match);
  }
  delete resource.id;
  sendWritten(ctx, req, res, 201, ctx.store.create(resource));
}

/**
 * `PUT [type]/[id]`: 200 with the next version, 201 when it creates; `If-Match: W/"[vid]"` that is
 * not the current version answers 412.
 *
 * @example
 * ```ts
 * await update(ctx, req, res, { type: 'Patient', id: 'a-patient-1' });
 * ```
 */
export async function update(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, target: Target & { id: string }): Promise<void> {
  const resource = parseResource(req.headers['content-type'], await readBody(req, ctx.options.bodyLimit), target.type);
  if (resource.id !== target.id) {
    throw new FhirgateError('ERR_INVALID_ID', resource.id === undefined ? 'the body has no id' : `the body's id "${String(resource.id)}" is not the URL's "${target.id}"`, { status: 400 });
  }
  const current = ctx.store.read(target.type, target.id);
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined) {
    const wanted = /^(?:W\/)?"(\d+)"$/.exec(ifMatch.trim())?.[1];
    if (wanted === undefined) throw new FhirgateError('ERR_BAD_REQUEST', 'If-Match must be W/"<versionId>"', { status: 400 });
    if (current.state !== 'found' || current.resource.meta?.versionId !== wanted) {
      throw new FhirgateError('ERR_CONFLICT', `version ${wanted} of ${target.type}/${target.id} is not the current one`, { status: 412 });
    }
  }
  sendWritten(ctx, req, res, current.state === 'found' ? 200 : 201, ctx.store.update(resource as Resource & { id: string }));
}

/**
 * `DELETE [type]/[id]`: 204, also when already deleted; 404 when it never existed.
 *
 * @example
 * ```ts
 * remove(ctx, res, { type: 'Patient', id: 'a-patient-1' });
 * ```
 */
export function remove(ctx: SandboxContext, res: ServerResponse, target: Target & { id: string }): void {
  if (ctx.store.delete(target.type, target.id) === 'missing') throw notThere(target, 'missing');
  sendJson(res, 204, undefined);
}
