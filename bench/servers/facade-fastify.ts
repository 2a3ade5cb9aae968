/**
 * The feature-equal anchor of the `facade` workload: what fhirgate's facade does for a read and a
 * federated search, built on Fastify 5 + `@fastify/reply-from` (undici inside) the way a Fastify user
 * would: the API key (`X-API-Key` or `Authorization: Bearer`) checked against a SHA-256 digest in
 * constant time in an `onRequest` hook (401 with `WWW-Authenticate: Bearer` otherwise), an `Accept` or
 * `_format` that is not JSON refused (406), the caller's sources and scopes checked (403), only FHIR's
 * request headers sent up (`Accept: application/fhir+json`, `Prefer`, `If-*`), only `ETag`,
 * `Last-Modified`, `Retry-After`, `X-Progress` passed back (the upstream's address kept out of them) and
 * `Location`/`Content-Location` moved, the answer parsed and every string of it under the facade's
 * rewrite rule (anchor-rewrite.ts; the upstream's bytes sent as they came when nothing changed), `X-Request-ID` (the caller's when sane, else a UUID) and
 * `X-Content-Type-Options: nosniff` on every answer, one AuditEvent-shaped JSON per access handed to an
 * in-memory queue after the answer (anchor-audit.ts). `/fhir/all/:type` fans a search out to both
 * sources with `Promise.all` over undici Pools and merges the Bundles as the facade's federated base
 * does (ids `<source>.<id>`, `meta.source`, `fullUrl`, `alternate` links, `total` when every source gave
 * one; a failed source an OperationOutcome entry). Upstream port in argv[2], the caller's key in
 * argv[3]; on SIGUSR1 prints `audited <count> <bytes of the last AuditEvent's JSON>`.
 */
import * as crypto from 'node:crypto';
import replyFrom from '@fastify/reply-from';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Pool } from 'undici';
import { AuditQueue, type Access } from './anchor-audit.js';
import { federatedEntry, Rebase, sourceQuery } from './anchor-rewrite.js';
import { SEARCH_BASES } from './fixed-patient.js';
import { announce } from './transform-resource.js';

const upstream = `http://127.0.0.1:${process.argv[2]}`;
const FHIR_JSON = 'application/fhir+json; charset=utf-8';
const SOURCES: Record<string, string> = SEARCH_BASES;
const SOURCE_NAMES = Object.keys(SOURCES);
const PASSED_UP = ['prefer', 'if-match', 'if-none-match', 'if-none-exist', 'if-modified-since'];
const PASSED_BACK = ['etag', 'last-modified', 'retry-after', 'x-progress'];
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const sha256 = (text: string): Buffer => (typeof crypto.hash === 'function' ? crypto.hash('sha256', text, 'buffer') : crypto.createHash('sha256').update(text).digest());

interface Caller {
  name: string;
  digest: Buffer;
  sources: Set<string>;
  /** `type:letter` pairs (`Patient:r`, `Patient:s`) its scopes allow. */
  allows: Set<string>;
}
const CALLERS: Caller[] = [{ name: 'bench', digest: sha256(process.argv[3]!), sources: new Set(SOURCE_NAMES), allows: new Set(['Patient:r', 'Patient:s']) }];

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | undefined;
    /** The request's W3C trace: the caller's trace when its `traceparent` is valid, else a new one; a span id of its own. */
    trace: { traceId: string; spanId: string; flags: string };
    audits: Access[] | undefined;
  }
}

const audit = new AuditQueue();
const pools = new Map(SOURCE_NAMES.map((s) => [s, new Pool(upstream, { connections: 64 })]));

const app = Fastify({
  logger: false,
  keepAliveTimeout: 5_000, // node:http's default, which fhirgate's host keeps: the same `Keep-Alive` header
  genReqId: (req) => {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && SANE_ID.test(given) ? given : crypto.randomUUID();
  },
});
await app.register(replyFrom, { base: upstream, undici: { connections: 64 } });
app.decorateRequest('caller', undefined);
app.decorateRequest('trace', undefined as never);
app.decorateRequest('audits', undefined);

/** The facade's base URL (`http://host/fhir`) as the caller reached it. */
const baseOf = (req: FastifyRequest) => `${req.protocol}://${req.host}/fhir`;
const outcome = (code: string, diagnostics: string) => JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code, diagnostics }] });

function access(req: FastifyRequest, interaction: Access['interaction'], source: string, server: string, fields: Partial<Access>): Access {
  const t = req.trace;
  return { interaction, source, caller: req.caller?.name, address: req.ip, server, requestId: req.id, traceparent: `00-${t.traceId}-${t.spanId}-${t.flags}`, outcome: 0, ...fields };
}

/** Refuses `req` with `status`, audited (outcome 4). */
function refuse(req: FastifyRequest, reply: FastifyReply, status: number, code: string, reason: string, shown = reason): FastifyReply {
  const { source = 'all' } = req.params as { source?: string };
  (req.audits ??= []).push(access(req, source === 'all' ? 'search-type' : 'read', source, `${baseOf(req)}/${source}`, { outcome: 4, outcomeDesc: reason }));
  return reply.code(status).type(FHIR_JSON).send(outcome(code, shown));
}

function identify(req: FastifyRequest): Caller | string {
  const key = req.headers['x-api-key'];
  const authorization = req.headers.authorization;
  if (key === undefined && authorization === undefined) return 'no credentials';
  const bearer = authorization === undefined ? undefined : /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization)?.[1];
  if (authorization !== undefined && bearer === undefined) return 'Authorization is not one Bearer credential';
  if (typeof key === 'string' && bearer !== undefined && key !== bearer) return 'X-API-Key and Authorization name different credentials';
  const given = sha256(String(key ?? bearer));
  let found: Caller | undefined;
  for (const c of CALLERS) if (crypto.timingSafeEqual(given, c.digest)) found = c;
  return found ?? 'unknown API key';
}

const TRACEPARENT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-([0-9a-f]{2})$/;
const hex = (bytes: number) => crypto.randomBytes(bytes).toString('hex');

app.addHook('onRequest', async (req, reply) => {
  const incoming = TRACEPARENT.exec(String(req.headers.traceparent ?? ''));
  const traceId = incoming !== null && !/^0+$/.test(incoming[1]!) ? incoming[1]! : hex(16);
  req.trace = { traceId, spanId: hex(8), flags: incoming?.[2] ?? '01' };
  reply.header('x-request-id', req.id).header('x-trace-id', traceId).header('x-content-type-options', 'nosniff');
  const caller = identify(req);
  if (typeof caller === 'string') return refuse(req, reply.header('www-authenticate', 'Bearer'), 401, 'login', `caller not identified: ${caller}`, 'credentials are missing or not valid');
  req.caller = caller;
  const accept = req.headers.accept;
  const format = (req.query as Record<string, unknown>)._format;
  if ((accept !== undefined && !/json|\*\/\*|^\s*$/i.test(accept)) || (format !== undefined && !/json/i.test(String(format)))) {
    return refuse(req, reply, 406, 'not-supported', 'the facade answers FHIR JSON only (Accept: application/fhir+json)');
  }
});

app.addHook('onResponse', async (req) => {
  for (const a of req.audits ?? []) audit.push(a);
});

/** The headers that go upstream. */
function upstreamHeaders(req: FastifyRequest): Record<string, string> {
  // Each upstream call a new span of the request's trace.
  const headers: Record<string, string> = { accept: 'application/fhir+json', traceparent: `00-${req.trace.traceId}-${hex(8)}-${req.trace.flags}` };
  for (const name of PASSED_UP) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** The rewriter of `source` for the base `req` reached. */
const rebaseOf = (req: FastifyRequest, source: string) => new Rebase(`${upstream}${SOURCES[source]}`, `${baseOf(req)}/${source}`);

/** A parsed FHIR JSON object, or `undefined`. */
function parsed(text: string, contentType: unknown): Record<string, unknown> | undefined {
  if (!/json/i.test(String(contentType ?? 'json'))) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const patientOf = (r: Record<string, unknown> | undefined): string | undefined => {
  if (r === undefined) return undefined;
  if (r.resourceType === 'Patient') return typeof r.id === 'string' ? `Patient/${r.id}` : undefined;
  const ref = ((r.subject ?? r.patient) as { reference?: unknown } | undefined)?.reference;
  return typeof ref === 'string' && ref.startsWith('Patient/') ? ref : undefined;
};

// reply-from's per-request hooks, made once.
const rewriteRequestHeaders = (req: FastifyRequest) => upstreamHeaders(req);
const rewriteHeaders = (headers: Record<string, unknown>, req: FastifyRequest) => {
  const out: Record<string, unknown> = {};
  const rebase = rebaseOf(req, (req.params as { source: string }).source);
  for (const name of PASSED_BACK) if (typeof headers[name] === 'string') out[name] = rebase.text(headers[name]);
  for (const name of ['location', 'content-location']) {
    const moved = typeof headers[name] === 'string' ? rebase.move(headers[name]) : undefined;
    if (moved !== undefined) out[name] = moved;
  }
  return out;
};
const onResponse = async (req: FastifyRequest, reply: FastifyReply, res: { statusCode: number; headers: Record<string, unknown>; stream: { text(): Promise<string> } }) => {
  const { source, type, id } = req.params as { source: string; type: string; id: string };
  const text = await res.stream.text();
  const body = text === '' ? undefined : parsed(text, res.headers['content-type']);
  if (text !== '' && body === undefined) return refuseUpstream(req, reply, source, `source "${source}" answered ${res.statusCode} with a body that is not FHIR JSON`);
  const changed = body !== undefined && rebaseOf(req, source).mayHold(text) && rebaseOf(req, source).rewrite(body);
  const resource = body?.resourceType === type ? body : undefined;
  const version = (resource?.meta as { versionId?: string } | undefined)?.versionId;
  (req.audits ??= []).push(access(req, 'read', source, `${baseOf(req)}/${source}`, {
    outcome: res.statusCode < 400 ? 0 : res.statusCode < 500 ? 4 : 8,
    ...(res.statusCode >= 400 ? { outcomeDesc: `answered ${res.statusCode}` } : {}),
    what: `${type}/${id}${version === undefined ? '' : `/_history/${version}`}`,
    ...(patientOf(resource) === undefined ? {} : { patient: patientOf(resource) }),
  }));
  reply.type(FHIR_JSON).send(changed ? JSON.stringify(body) : text);
};
function refuseUpstream(req: FastifyRequest, reply: FastifyReply, source: string, reason: string): FastifyReply {
  (req.audits ??= []).push(access(req, 'read', source, `${baseOf(req)}/${source}`, { outcome: 8, outcomeDesc: reason }));
  return reply.code(502).type(FHIR_JSON).send(outcome('exception', reason));
}
const onError = (reply: FastifyReply, { error }: { error: Error & { code?: string } }) => {
  const { source } = reply.request.params as { source: string };
  refuseUpstream(reply.request, reply, source, `source "${source}" failed: ${error.code ?? 'error'}`);
};

/** Read: `GET /fhir/:source/:type/:id`, forwarded with reply-from. */
app.get('/fhir/:source/:type/:id', (req, reply) => {
  const { source, type, id } = req.params as { source: string; type: string; id: string };
  if (!Object.hasOwn(SOURCES, source)) return reply.code(404).type(FHIR_JSON).send(outcome('not-found', `no FHIR base "${source.slice(0, 64)}" here`));
  if (!req.caller!.sources.has(source) || !req.caller!.allows.has(`${type}:r`)) return refuse(req, reply, 403, 'forbidden', `scope does not allow read on ${type}`);
  const q = req.url.indexOf('?');
  return reply.from(`${SOURCES[source]}/${encodeURIComponent(type)}/${encodeURIComponent(id)}${q < 0 ? '' : req.url.slice(q)}`, { rewriteRequestHeaders, rewriteHeaders, onResponse, onError } as never);
});

interface SourcePage {
  entries: Record<string, unknown>[];
  total: number | undefined;
}

/** One source's page of a federated search, or the issues of its failure. */
async function searchSource(req: FastifyRequest, source: string, type: string, query: URLSearchParams, auditQuery: string): Promise<SourcePage | { issues: Record<string, unknown>[] }> {
  const sourceBase = `${baseOf(req)}/${source}`;
  const own = sourceQuery(query, source, SOURCE_NAMES);
  if (own === undefined) return { entries: [], total: 0 };
  try {
    const res = await pools.get(source)!.request({ method: 'GET', path: `${SOURCES[source]}/${type}${own.size === 0 ? '' : `?${own}`}`, headers: upstreamHeaders(req) });
    const text = await res.body.text();
    const body = parsed(text, res.headers['content-type']);
    const rebase = rebaseOf(req, source);
    if (body !== undefined && rebase.mayHold(text)) rebase.rewrite(body);
    const entries = (body?.entry ?? []) as Record<string, unknown>[];
    const patients = new Set(entries.map((e) => patientOf(e.resource as Record<string, unknown> | undefined)).filter((p) => p !== undefined));
    const fields = { query: auditQuery, ...(res.statusCode >= 400 ? { outcomeDesc: `answered ${res.statusCode}` } : {}), outcome: res.statusCode < 400 ? 0 : res.statusCode < 500 ? 4 : 8 } as const;
    if (patients.size === 0) (req.audits ??= []).push(access(req, 'search-type', source, sourceBase, fields));
    for (const patient of patients) (req.audits ??= []).push(access(req, 'search-type', source, sourceBase, { ...fields, patient }));
    if (res.statusCode !== 200 || body === undefined) {
      const issues = body?.resourceType === 'OperationOutcome' && Array.isArray(body.issue) ? (body.issue as Record<string, unknown>[]) : [{ severity: 'error', code: 'exception' }];
      return { issues: issues.map((i) => ({ ...i, diagnostics: `source "${source}" answered ${res.statusCode}${typeof i.diagnostics === 'string' ? `: ${i.diagnostics}` : ''}` })) };
    }
    const federatedBase = `${baseOf(req)}/all`;
    return { entries: entries.map((e) => federatedEntry(e, source, sourceBase, federatedBase, SOURCE_NAMES)), total: typeof body.total === 'number' ? body.total : undefined };
  } catch (error) {
    (req.audits ??= []).push(access(req, 'search-type', source, sourceBase, { outcome: 8, outcomeDesc: `source failed: ${(error as { code?: string }).code ?? 'error'}` }));
    return { issues: [{ severity: 'error', code: 'exception', diagnostics: `source "${source}" failed` }] };
  }
}

/** Federated search: `GET /fhir/all/:type?…` over every source the caller may search, in parallel. */
app.get('/fhir/all/:type', async (req, reply) => {
  const { type } = req.params as { type: string };
  if (!/^[A-Z][A-Za-z]{1,63}$/.test(type)) return reply.code(404).type(FHIR_JSON).send(outcome('not-found', `"${type.slice(0, 64)}" is not a resource type`));
  const allowed = SOURCE_NAMES.filter((s) => req.caller!.sources.has(s) && req.caller!.allows.has(`${type}:s`));
  if (allowed.length === 0) return refuse(req, reply, 403, 'forbidden', `no source allows this caller to search ${type}`);
  const q = req.url.indexOf('?');
  const query = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));
  const pages = await Promise.all(allowed.map((s) => searchSource(req, s, type, query, `GET /all/${type}${query.size === 0 ? '' : `?${query}`}`)));
  const answered = pages.filter((p): p is SourcePage => 'entries' in p);
  const failed = pages.filter((p): p is { issues: Record<string, unknown>[] } => 'issues' in p);
  if (answered.length === 0) return reply.code(502).type(FHIR_JSON).send(JSON.stringify({ resourceType: 'OperationOutcome', issue: failed.flatMap((f) => f.issues) }));
  const totals = answered.map((p) => p.total);
  const total = failed.length === 0 && totals.every((t) => t !== undefined) ? totals.reduce((a, b) => a! + b!, 0) : undefined;
  return reply.type(FHIR_JSON).send(JSON.stringify({
    resourceType: 'Bundle',
    type: 'searchset',
    ...(total === undefined ? {} : { total }),
    link: [{ relation: 'self', url: `${baseOf(req)}/all/${type}${query.size > 0 ? `?${query}` : ''}` }],
    entry: [...answered.flatMap((p) => p.entries), ...failed.map((f) => ({ resource: { resourceType: 'OperationOutcome', issue: f.issues }, search: { mode: 'outcome' } }))],
  }));
});

process.on('SIGUSR1', () => console.log(`audited ${audit.delivered} ${audit.lastBytes}`));
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
