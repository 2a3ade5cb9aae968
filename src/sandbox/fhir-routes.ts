/**
 * The FHIR REST interactions of the sandbox (FHIR R4 http.html): read, vread, create, update, delete,
 * search. Each answers on `res`; failures with a status are thrown as `FhirgateError` and become
 * OperationOutcomes in the server.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { searchsetBundle, type Resource, type ResourceType } from '../fhir/index.js';
import type { SandboxContext } from './context.js';
import { createResource, deleteResource, readResource, updateResource, type Target, type Written } from './interactions.js';
import { readBytes } from '../lib/read-body.js';
import { parseResource } from './parse-resource.js';
import { sendJSON, sendOutcome } from './reply.js';
import { runSearch } from './search.js';

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
function sendWritten(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, { status, resource }: Written): void {
  const headers = versionHeaders(ctx, resource, true);
  const prefer = /return=(minimal|representation|operationoutcome)/i.exec(String(req.headers.prefer ?? ''))?.[1]?.toLowerCase();
  if (prefer === 'minimal') sendJSON(res, status, undefined, headers);
  else if (prefer === 'operationoutcome') sendOutcome(res, status, 'informational', `${resource.resourceType}/${resource.id} saved`, headers);
  else sendJSON(res, status, resource, headers);
}

/** `GET [type]/[id]` and `GET [type]/[id]/_history/[vid]`: 200 with `ETag`, 404 unknown, 410 deleted. */
export function read(ctx: SandboxContext, res: ServerResponse, target: Target & { id: string }): void {
  const resource = readResource(ctx, target);
  sendJSON(res, 200, resource, versionHeaders(ctx, resource, false));
}

/**
 * `GET [type]?…` and `POST [type]/_search` (form body parameters join the query's): a searchset
 * Bundle with `total`, absolute `self`/`next` links and `fullUrl`s.
 */
export async function search(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, query: URLSearchParams): Promise<void> {
  const params = new URLSearchParams(query);
  if (req.method === 'POST') {
    for (const [k, v] of new URLSearchParams((await readBytes(req, ctx.options.bodyLimit)).toString('utf8'))) params.append(k, v);
  }
  const page = runSearch(ctx.store, type, params);
  const url = (q: URLSearchParams): string => `${ctx.fhirBase}/${type}${q.size === 0 ? '' : `?${q}`}`;
  const links = [{ relation: 'self', url: url(page.self) }, ...(page.next === undefined ? [] : [{ relation: 'next', url: url(page.next) }])];
  sendJSON(res, 200, searchsetBundle(page.resources, { total: page.total, links, baseUrl: ctx.fhirBase }));
}

/**
 * `POST [type]`: 201 with `Location` and `ETag`; an id in the body is replaced. `If-None-Exist` makes
 * it conditional (200 with the one match, 412 for several).
 */
export async function create(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, type: ResourceType): Promise<void> {
  const resource = parseResource(req.headers['content-type'], await readBytes(req, ctx.options.bodyLimit), type);
  const condition = req.headers['if-none-exist'];
  sendWritten(ctx, req, res, createResource(ctx, resource, condition === undefined ? undefined : String(condition)));
}

/**
 * `PUT [type]/[id]`: 200 with the next version, 201 when it creates; `If-Match: W/"[vid]"` that is
 * not the current version answers 412.
 */
export async function update(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, target: Target & { id: string }): Promise<void> {
  const resource = parseResource(req.headers['content-type'], await readBytes(req, ctx.options.bodyLimit), target.type);
  sendWritten(ctx, req, res, updateResource(ctx, target, resource, req.headers['if-match']));
}

/** `DELETE [type]/[id]`: 204, also when already deleted; 404 when it never existed. */
export function remove(ctx: SandboxContext, res: ServerResponse, target: Target & { id: string }): void {
  deleteResource(ctx, target);
  sendJSON(res, 204, undefined);
}
