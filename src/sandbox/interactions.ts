/**
 * The sandbox's write and read interactions on the store, apart from HTTP: the REST routes and the
 * entries of transaction and batch Bundles both run them. Failures are `FhirgateError`s with the
 * status to answer.
 * @module
 */
import { FhirgateError } from '../errors.js';
import type { Resource, ResourceType } from '../fhir/index.js';
import type { SandboxContext } from './context.js';
import { runSearch } from './search.js';

/** Search parameters that shape a page but select nothing. */
const PAGING = new Set(['_count', '_sort', '_offset', '_elements']);

/** The resource a request addresses: `[type]`, `[type]/[id]` or `[type]/[id]/_history/[vid]`. */
export interface Target {
  readonly type: ResourceType;
  readonly id?: string;
  readonly vid?: number;
}

/** What a write did: the status to answer (200 or 201) and the resource as stored. */
export interface Written {
  readonly status: number;
  readonly resource: Resource;
}

function notThere(target: Target, state: 'deleted' | 'missing'): FhirgateError {
  const ref = `${target.type}/${target.id}${target.vid === undefined ? '' : `/_history/${target.vid}`}`;
  return state === 'deleted'
    ? new FhirgateError('ERR_NOT_FOUND', `${ref} was deleted`, { status: 410 })
    : new FhirgateError('ERR_NOT_FOUND', `${ref} is not known`, { status: 404 });
}

/** A resource, or one version of it: 404 unknown, 410 deleted. */
export function readResource(ctx: SandboxContext, target: Target & { id: string }): Resource {
  const found = target.vid === undefined ? ctx.store.read(target.type, target.id) : ctx.store.vread(target.type, target.id, target.vid);
  if (found.state !== 'found') throw notThere(target, found.state);
  return found.resource;
}

/**
 * Creates `resource` (an id in it is replaced by `id`, default a fresh UUID): 201. With `ifNoneExist`
 * (a query, with or without a leading `[type]?`) it is conditional: 200 and the one match, 412 for several,
 * 400 for a query without any criterion (it would match everything).
 */
export function createResource(ctx: SandboxContext, resource: Resource, ifNoneExist?: string, id?: string): Written {
  if (ifNoneExist !== undefined) {
    const query = new URLSearchParams(ifNoneExist.replace(/^[^?]*\?/, ''));
    // A condition with no criterion would match every resource: refuse it rather than answer 412 or a stranger.
    if (![...query].some(([name, value]) => value !== '' && !PAGING.has(name))) {
      throw new FhirgateError('ERR_INVALID_SEARCH', 'If-None-Exist holds no search criterion', { status: 400 });
    }
    const existing = runSearch(ctx.store, resource.resourceType, query);
    if (existing.total > 1) throw new FhirgateError('ERR_CONFLICT', 'If-None-Exist matches more than one resource', { status: 412 });
    const [match] = existing.resources;
    if (match !== undefined) return { status: 200, resource: match };
  }
  const { id: _ignored, ...fresh } = resource;
  return { status: 201, resource: ctx.store.create(fresh as Resource, id) };
}

/**
 * Writes the next version of `target` (201 when it creates it, else 200). The resource's id must be
 * the target's (400); `ifMatch` (`W/"[vid]"`) that is not the current version is 412.
 */
export function updateResource(ctx: SandboxContext, target: Target & { id: string }, resource: Resource, ifMatch?: string): Written {
  if (resource.id !== target.id) {
    throw new FhirgateError('ERR_INVALID_ID', resource.id === undefined ? 'the body has no id' : `the body's id "${String(resource.id)}" is not the URL's "${target.id}"`, { status: 400 });
  }
  const current = ctx.store.read(target.type, target.id);
  if (ifMatch !== undefined) {
    const wanted = /^(?:W\/)?"(\d+)"$/.exec(ifMatch.trim())?.[1];
    if (wanted === undefined) throw new FhirgateError('ERR_BAD_REQUEST', 'If-Match must be W/"<versionId>"', { status: 400 });
    if (current.state !== 'found' || current.resource.meta?.versionId !== wanted) {
      throw new FhirgateError('ERR_CONFLICT', `version ${wanted} of ${target.type}/${target.id} is not the current one`, { status: 412 });
    }
  }
  return { status: current.state === 'found' ? 200 : 201, resource: ctx.store.update(resource as Resource & { id: string }) };
}

/** Deletes `target`; also when already deleted. 404 when it never existed. */
export function deleteResource(ctx: SandboxContext, target: Target & { id: string }): void {
  if (ctx.store.delete(target.type, target.id) === 'missing') throw notThere(target, 'missing');
}
