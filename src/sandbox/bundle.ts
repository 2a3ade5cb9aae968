/**
 * `POST [base]` with a `transaction` or `batch` Bundle (FHIR R4 http.html#transaction). A batch runs
 * each entry on its own and answers every outcome. A transaction runs DELETEs, then POSTs, then PUTs,
 * then GETs, resolving `urn:uuid:` fullUrls of created resources in every reference of the Bundle;
 * on any failure nothing is stored and the answer is the failing entry's OperationOutcome and status.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { FhirgateError } from '../errors.js';
import { isFHIRId, isResourceType, operationOutcome, searchsetBundle, type BundleEntry, type Resource, type ResourceType } from '../fhir/index.js';
import type { SandboxContext } from './context.js';
import { failureOf } from './failure.js';
import { createResource, deleteResource, readResource, updateResource, type Written } from './interactions.js';
import { readBytes } from '../lib/read-body.js';
import { parseResource } from './parse-resource.js';
import { sendJSON } from './reply.js';
import { runSearch } from './search.js';

/** One request entry, checked: what it addresses and what it carries. */
interface EntryRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly type: ResourceType;
  readonly id: string | undefined;
  readonly query: URLSearchParams;
  readonly resource: Resource | undefined;
  readonly fullUrl: string | undefined;
  readonly ifMatch: string | undefined;
  readonly ifNoneExist: string | undefined;
}

/** The order a transaction runs entries in (http.html#trules). */
const ORDER = { DELETE: 0, POST: 1, PUT: 2, GET: 3 } as const;

function bad(message: string, status = 400): FhirgateError {
  return new FhirgateError('ERR_INVALID_RESOURCE', message, { status });
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw bad(`${name} must be a string`);
}

/** A transaction's failure at entry `index`: its status, and a message saying nothing was stored. */
function failedAt(err: unknown, index: number): FhirgateError {
  const { status, message } = failureOf(err);
  const code = err instanceof FhirgateError ? err.code : 'ERR_HANDLER';
  return new FhirgateError(code, `transaction failed at entry[${index}], nothing was stored: ${message}`, { status });
}

/** Checks one entry; its URL is relative (`Patient`, `Patient/1`, `Patient?x=y`) or under the base. */
function entryRequest(ctx: SandboxContext, entry: unknown): EntryRequest {
  const { request, resource, fullUrl } = (entry ?? {}) as { request?: Record<string, unknown>; resource?: unknown; fullUrl?: unknown };
  const { method, url } = request ?? {};
  if (method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'DELETE') {
    throw bad('request.method must be GET, POST, PUT or DELETE here', typeof method === 'string' ? 405 : 400);
  }
  if (typeof url !== 'string' || url === '') throw bad('request.url must be a non-empty string');
  const relative = url.startsWith(`${ctx.fhirBase}/`) ? url.slice(ctx.fhirBase.length + 1) : url;
  const mark = relative.indexOf('?');
  const [type = '', id, ...rest] = (mark < 0 ? relative : relative.slice(0, mark)).split('/');
  if (!isResourceType(type) || rest.length > 0) throw bad(`request.url "${url.slice(0, 100)}" is not [type], [type]/[id] or [type]?[query]`);
  if (id !== undefined && !isFHIRId(id)) throw bad('the id in request.url is not a FHIR id');
  if ((method === 'POST' && id !== undefined) || ((method === 'PUT' || method === 'DELETE') && id === undefined)) {
    throw bad(`${method} ${type}${id === undefined ? '' : '/[id]'} is not an interaction here`);
  }
  let body: Resource | undefined;
  if (method === 'POST' || method === 'PUT') {
    body = parseResource('application/fhir+json', Buffer.from(JSON.stringify(resource ?? null)), type);
  }
  return {
    method,
    type,
    id,
    query: new URLSearchParams(mark < 0 ? '' : relative.slice(mark + 1)),
    resource: body,
    fullUrl: optionalString(fullUrl, 'fullUrl'),
    ifMatch: optionalString(request?.ifMatch, 'request.ifMatch'),
    ifNoneExist: optionalString(request?.ifNoneExist, 'request.ifNoneExist'),
  };
}

function statusText(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? ''}`.trim();
}

function writtenEntry(ctx: SandboxContext, { status, resource }: Written): BundleEntry {
  const vid = resource.meta?.versionId ?? '1';
  return {
    fullUrl: `${ctx.fhirBase}/${resource.resourceType}/${resource.id}`,
    resource,
    response: {
      status: statusText(status),
      location: `${resource.resourceType}/${resource.id}/_history/${vid}`,
      etag: `W/"${vid}"`,
      ...(resource.meta?.lastUpdated === undefined ? {} : { lastModified: resource.meta.lastUpdated }),
    },
  };
}

/** Runs one entry; `id` is the id a transaction assigned to a created resource. */
function runEntry(ctx: SandboxContext, e: EntryRequest, id?: string): BundleEntry {
  switch (e.method) {
    case 'POST':
      return writtenEntry(ctx, createResource(ctx, e.resource as Resource, e.ifNoneExist, id));
    case 'PUT':
      return writtenEntry(ctx, updateResource(ctx, { type: e.type, id: e.id as string }, e.resource as Resource, e.ifMatch));
    case 'DELETE':
      deleteResource(ctx, { type: e.type, id: e.id as string });
      return { response: { status: statusText(204) } };
    default: {
      if (e.id !== undefined) {
        const resource = readResource(ctx, { type: e.type, id: e.id });
        return { ...writtenEntry(ctx, { status: 200, resource }), response: { status: statusText(200), etag: `W/"${resource.meta?.versionId ?? '1'}"` } };
      }
      const page = runSearch(ctx.store, e.type, e.query);
      return { resource: searchsetBundle(page.resources, { total: page.total, baseUrl: ctx.fhirBase }), response: { status: statusText(200) } };
    }
  }
}

function failedEntry(err: unknown): BundleEntry {
  const { status, code, message } = failureOf(err);
  return { response: { status: statusText(status), outcome: operationOutcome('error', code, message) } };
}

/** Replaces, in place, every `reference` that names a key of `ids` (a `urn:uuid:` fullUrl). */
function resolveReferences(value: unknown, ids: ReadonlyMap<string, string>): void {
  if (Array.isArray(value)) {
    value.forEach((v) => resolveReferences(v, ids));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(record)) {
    if (key === 'reference' && typeof v === 'string' && ids.has(v)) record[key] = ids.get(v);
    else resolveReferences(v, ids);
  }
}

/** The ids a transaction's creates get: the one match of a conditional create, else a fresh UUID. */
function assignIds(ctx: SandboxContext, entries: readonly EntryRequest[]): Map<number, string> {
  const ids = new Map<number, string>();
  entries.forEach((e, i) => {
    if (e.method !== 'POST') return;
    const matches = e.ifNoneExist === undefined ? undefined : runSearch(ctx.store, e.type, new URLSearchParams(e.ifNoneExist.replace(/^[^?]*\?/, '')));
    ids.set(i, matches?.total === 1 ? (matches.resources[0]?.id as string) : randomUUID());
  });
  return ids;
}

function transaction(ctx: SandboxContext, raw: readonly unknown[]): BundleEntry[] {
  const entries = raw.map((e, i) => {
    try {
      return entryRequest(ctx, e);
    } catch (err) {
      throw failedAt(err, i);
    }
  });
  const ids = assignIds(ctx, entries);
  const references = new Map<string, string>();
  for (const [i, id] of ids) {
    const e = entries[i] as EntryRequest;
    if (e.fullUrl?.startsWith('urn:uuid:') === true) references.set(e.fullUrl, `${e.type}/${id}`);
  }
  entries.forEach((e) => resolveReferences(e.resource, references));
  const order = entries.map((_, i) => i).sort((a, b) => ORDER[entries[a]!.method] - ORDER[entries[b]!.method] || a - b);
  const answers: BundleEntry[] = [];
  const snapshot = ctx.store.snapshot();
  for (const i of order) {
    try {
      answers[i] = runEntry(ctx, entries[i] as EntryRequest, ids.get(i));
    } catch (err) {
      ctx.store.restore(snapshot);
      throw failedAt(err, i);
    }
  }
  return answers;
}

/**
 * `POST [base]`: runs a `transaction` or `batch` Bundle and answers the `transaction-response` or
 * `batch-response` Bundle, one entry per request entry, in order.
 */
export async function postBundle(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const bundle = parseResource(req.headers['content-type'], await readBytes(req, ctx.options.bodyLimit), 'Bundle') as Resource & { type?: unknown; entry?: unknown };
  if (bundle.type !== 'transaction' && bundle.type !== 'batch') {
    throw new FhirgateError('ERR_INVALID_RESOURCE', 'only a transaction or batch Bundle may be posted to the base', { status: 400 });
  }
  if (bundle.entry !== undefined && !Array.isArray(bundle.entry)) throw new FhirgateError('ERR_INVALID_RESOURCE', 'Bundle.entry must be an array', { status: 400 });
  const raw = (bundle.entry ?? []) as unknown[];
  const entry = bundle.type === 'transaction'
    ? transaction(ctx, raw)
    : raw.map((e) => {
        try {
          return runEntry(ctx, entryRequest(ctx, e));
        } catch (err) {
          return failedEntry(err);
        }
      });
  sendJSON(res, 200, { resourceType: 'Bundle', type: `${bundle.type}-response`, ...(entry.length === 0 ? {} : { entry }) });
}
