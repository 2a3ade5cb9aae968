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
 * one; a failed source an OperationOutcome entry). `/fhir/all/Patient/:id/$everything` (and
 * `Patient/$everything?identifier=…`) resolves the patient by identifier in every source (a read of the
 * record, a search by its MRN elsewhere; cached for argv[4] seconds, 0: on every request) and fetches each
 * source's own `$everything` with `Promise.all` over undici, held to the patient's compartment, rewritten,
 * federated, its records linked `seealso`, merged with `_count` and a signed page token, one AuditEvent for
 * the resolution and one per source (anchor-everything.ts). Upstream port in argv[2], the caller's key in
 * argv[3], with argv[4] the caller is the `$everything` rows' (`system/*.rs`, `$everything`); on SIGUSR1
 * prints `audited <count> <bytes of the last AuditEvent's JSON> <bytes of all>`.
 */
import * as crypto from 'node:crypto';
import replyFrom from '@fastify/reply-from';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { AuditQueue, type Access } from './anchor-audit.js';
import { linkRecords, mergePages, once, PageTokens, Resolver, type PageState, type Position, type SourcePage as EverythingPage } from './anchor-everything.js';
import { federatedEntry, federatedId, Rebase, sourceQuery } from './anchor-rewrite.js';
import { EVERYTHING_MRN } from './everything-fixture.js';
import { SEARCH_BASES } from './fixed-patient.js';
// FHIR's Patient CompartmentDefinition, as the facade holds `$everything` to it: imported, not copied, so that the two cannot drift.
import { inCompartment } from '../../src/facade/compartment.js';
import { announce } from './transform-resource.js';
import { sourcePools } from './undici-pools.js';

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
/** With argv[4] (the resolution's TTL in seconds) the caller of the `$everything` rows (`system/*.rs`, `$everything`), else of the read and search rows (`system/Patient.rs`). */
const EVERYTHING_TTL = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
const CALLERS: Caller[] = [{ name: 'bench', digest: sha256(process.argv[3]!), sources: new Set(SOURCE_NAMES), allows: new Set(EVERYTHING_TTL === undefined ? ['Patient:r', 'Patient:s'] : ['*:r', '*:s', 'Patient:$everything']) }];
/** True when `caller`'s scopes allow `what` (`r`, `s`, an operation) on `type`. */
const allows = (caller: Caller, type: string, what: string) => caller.allows.has(`${type}:${what}`) || caller.allows.has(`*:${what}`);

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | undefined;
    /** The request's W3C trace: the caller's trace when its `traceparent` is valid, else a new one; a span id of its own. */
    trace: { traceId: string; spanId: string; flags: string };
    audits: Access[] | undefined;
  }
}

const audit = new AuditQueue();
const pools = sourcePools(upstream);

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
  // A User-Agent of the same length as the facade's (`fhirgate/0.1.0`).
  const headers: Record<string, string> = { accept: 'application/fhir+json', 'user-agent': 'fastify-gw/0.1', traceparent: `00-${req.trace.traceId}-${hex(8)}-${req.trace.flags}` };
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
  if (!req.caller!.sources.has(source) || !allows(req.caller!, type, 'r')) return refuse(req, reply, 403, 'forbidden', `scope does not allow read on ${type}`);
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
  const allowed = SOURCE_NAMES.filter((s) => req.caller!.sources.has(s) && allows(req.caller!, type, 's'));
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

const EVERYTHING = '$everything';
const resolver = new Resolver([EVERYTHING_MRN], EVERYTHING_TTL ?? 0);
const tokens = new PageTokens();
/** What a source's CapabilityStatement says of `Patient/$everything`, kept five minutes. */
const statements = new Map<string, { at: number; everything: Promise<boolean> }>();

/** A GET of `path` under `source`'s base, its body parsed. */
async function getAt(req: FastifyRequest, source: string, path: string): Promise<{ status: number; text: string; body: Record<string, unknown> | undefined }> {
  const res = await pools.get(source)!.request({ method: 'GET', path: path.startsWith('/') ? path : `${SOURCES[source]}/${path}`, headers: upstreamHeaders(req) });
  const text = await res.body.text();
  return { status: res.statusCode, text, body: parsed(text, res.headers['content-type']) };
}

function answersEverything(req: FastifyRequest, source: string): Promise<boolean> {
  const kept = statements.get(source);
  if (kept !== undefined && Date.now() - kept.at < 300_000) return kept.everything;
  const everything = getAt(req, source, 'metadata').then(({ body }) => {
    const rest = (body?.rest ?? []) as { resource?: { type?: string; operation?: { name?: string }[] }[] }[];
    return rest.some((r) => r.resource?.some((t) => t.type === 'Patient' && t.operation?.some((o) => o.name === 'everything')) === true);
  }, () => false);
  statements.set(source, { at: Date.now(), everything });
  return everything;
}

/** One source's `$everything` page (at `position`), rewritten and federated, audited as the facade does: or the issues of its failure. */
async function everythingAt(req: FastifyRequest, position: Position, local: string, params: string): Promise<EverythingPage | { issues: Record<string, unknown>[] }> {
  const { source } = position;
  const sourceBase = `${baseOf(req)}/${source}`;
  const facts = { what: `Patient/${local}`, patient: `Patient/${local}` };
  const pageLink = position.link === '' ? `${SOURCES[source]}/Patient/${encodeURIComponent(local)}/${encodeURIComponent(EVERYTHING)}${params === '' ? '' : `?${params}`}` : position.link!;
  try {
    const { status, text, body } = await getAt(req, source, pageLink);
    (req.audits ??= []).push(access(req, 'operation', source, sourceBase, { ...facts, outcome: status < 400 ? 0 : status < 500 ? 4 : 8, ...(status >= 400 ? { outcomeDesc: `answered ${status}` } : {}) }));
    if (status !== 200 || body === undefined) {
      const issues = body?.resourceType === 'OperationOutcome' && Array.isArray(body.issue) ? (body.issue as Record<string, unknown>[]) : [{ severity: 'error', code: 'exception' }];
      return { issues: issues.map((i) => ({ ...i, diagnostics: `source "${source}" answered ${status}${typeof i.diagnostics === 'string' ? `: ${i.diagnostics}` : ''}` })) };
    }
    const next = ((body.link ?? []) as { relation?: string; url?: string }[]).find((l) => l.relation === 'next')?.url;
    const rebase = rebaseOf(req, source);
    if (rebase.mayHold(text)) rebase.rewrite(body);
    // Held to the patient: an entry outside the patient's compartment (another patient's data) is dropped.
    const bases = [`${upstream}${SOURCES[source]}`, sourceBase];
    const held = ((body.entry ?? []) as Record<string, unknown>[]).filter((e) => typeof e.resource !== 'object' || e.resource === null || (e.resource as { resourceType?: unknown }).resourceType === 'OperationOutcome' || inCompartment(e.resource, local, bases));
    const entries = held.slice(position.skip).map((e) => federatedEntry(e, source, sourceBase, `${baseOf(req)}/all`, SOURCE_NAMES));
    return { source, entries, pageLink, nextLink: next === undefined ? null : new URL(next).pathname + new URL(next).search, skipped: position.skip };
  } catch (error) {
    (req.audits ??= []).push(access(req, 'operation', source, sourceBase, { ...facts, outcome: 8, outcomeDesc: `source failed: ${(error as { code?: string }).code ?? 'error'}` }));
    return { issues: [{ severity: 'error', code: 'exception', diagnostics: `source "${source}" failed` }] };
  }
}

/** `Patient/[id]/$everything` and `Patient/$everything?identifier=…|_page_token=…` at the federated base: resolved by identifier, each source's own `$everything` fetched with `Promise.all`, merged. */
async function everything(req: FastifyRequest, reply: FastifyReply, id: string | undefined): Promise<FastifyReply> {
  const base = `${baseOf(req)}/all`;
  const refuseOp = (status: number, code: string, reason: string) => {
    (req.audits ??= []).push(access(req, 'operation', 'all', base, { outcome: status >= 500 ? 8 : 4, outcomeDesc: reason }));
    return reply.code(status).type(FHIR_JSON).send(outcome(code, reason));
  };
  const caller = req.caller!;
  if (!allows(caller, 'Patient', EVERYTHING)) return refuseOp(403, 'forbidden', `operation ${EVERYTHING} is not allowed`);
  const q = req.url.indexOf('?');
  const query = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));
  const usable = SOURCE_NAMES.filter((s) => caller.sources.has(s));
  const get = async (source: string, path: string) => getAt(req, source, path);
  let state: PageState;
  const issues: Record<string, unknown>[] = [];
  const token = query.get('_page_token');
  if (token !== null) {
    const opened = tokens.open(token);
    if (opened === undefined || opened.caller !== caller.name) return refuseOp(400, 'invalid', 'the page token is not valid');
    const now = await resolver.resolve(opened.query, Object.keys(opened.patients), get);
    auditResolution(req, base, now);
    for (const [source, local] of Object.entries(opened.patients)) {
      const o = now.outcomes.find((x) => x.source === source);
      if (o?.status !== 'found' || o.id !== local) return refuseOp(400, 'invalid', `the patient's record in source "${source}" changed since the first page: call ${EVERYTHING} again`);
    }
    state = opened;
  } else {
    for (const key of query.keys()) if (!['identifier', '_since', '_type', '_count', '_format'].includes(key)) return refuseOp(400, 'not-supported', `${EVERYTHING} at the federated base takes identifier, _since, _type and _count, not "${key.slice(0, 64)}"`);
    const identifier = query.get('identifier');
    if ((id === undefined) === (identifier === null)) return refuseOp(400, 'invalid', `name the patient by its id (Patient/[source].[id]/${EVERYTHING}) or by ?identifier=system|value: one of them`);
    const count = query.get('_count');
    if (count !== null && (!/^\d+$/.test(count) || Number(count) > 1000)) return refuseOp(400, 'invalid', '_count must be an integer from 0 to 1000');
    let asked: PageState['query'];
    if (id !== undefined) {
      const source = SOURCE_NAMES.filter((s) => id.startsWith(`${s}.`)).sort((a, b) => b.length - a.length)[0];
      if (source === undefined) return refuseOp(404, 'not-found', `Patient/${id.slice(0, 64)} is not an id of this base (ids here are [source].[id])`);
      if (!caller.sources.has(source)) return refuseOp(403, 'forbidden', `source "${source}" is not one of this caller's`);
      asked = { source, id: id.slice(source.length + 1) };
    } else asked = { identifier: identifier! };
    const resolution = await resolver.resolve(asked, usable, get);
    auditResolution(req, base, resolution);
    const origin = 'source' in asked ? resolution.outcomes.find((o) => o.source === asked.source) : undefined;
    if (origin?.status === 'absent') return refuseOp(404, 'not-found', `Patient/${id!} is not known`);
    if (origin?.status === 'failed') return refuseOp(502, 'exception', `source "${origin.source}" could not be asked for the patient`);
    const patients: Record<string, string> = {};
    for (const o of resolution.outcomes) {
      if (o.status === 'ambiguous') issues.push({ severity: 'error', code: 'multiple-matches', diagnostics: `source "${o.source}" is refused for this patient: different records there match the patient's identifiers` });
      else if (o.status === 'failed') issues.push({ severity: 'error', code: 'exception', diagnostics: `source "${o.source}" could not be asked for the patient` });
      else if (o.status === 'found') patients[o.source] = o.id;
    }
    if (Object.keys(patients).length === 0 && issues.length === 0) return refuseOp(404, 'not-found', 'no source knows a patient with that identifier');
    const params = new URLSearchParams();
    for (const key of ['_count', '_since', '_type']) if (query.has(key)) params.set(key, query.get(key)!);
    const stated = await Promise.all(Object.keys(patients).map(async (s) => [s, await answersEverything(req, s)] as const));
    for (const [source, answers] of stated) {
      if (answers) continue;
      issues.push({ severity: 'error', code: 'not-supported', diagnostics: `source "${source}" does not answer ${EVERYTHING}` });
      delete patients[source];
    }
    state = { caller: caller.name, query: asked, patients, params: params.toString(), count: count === null ? undefined : Number(count), positions: Object.keys(patients).map((source) => ({ source, link: '', skip: 0 })) };
  }
  const fetched = await Promise.all(state.positions.filter((p) => p.link !== null).map((p) => everythingAt(req, p, state.patients[p.source]!, state.params)));
  const answered = fetched.filter((p): p is EverythingPage => 'entries' in p);
  const failed = fetched.filter((p): p is { issues: Record<string, unknown>[] } => 'issues' in p).flatMap((f) => f.issues);
  if (failed.length > 0 && (answered.length === 0 || /handling=strict/i.test(String(req.headers.prefer ?? '')))) return reply.code(502).type(FHIR_JSON).send(JSON.stringify({ resourceType: 'OperationOutcome', issue: failed }));
  const merged = mergePages(answered, state.count);
  const next = state.count !== 0 && merged.positions.some((p) => p.link !== null) ? tokens.sign({ ...state, positions: merged.positions }) : undefined;
  const shownId = (source: string, local: string) => federatedId(source, local, SOURCE_NAMES) ?? local;
  const reference = (source: string, local: string) => {
    const federated = federatedId(source, local, SOURCE_NAMES);
    return federated === undefined ? `${baseOf(req)}/${source}/Patient/${local}` : `Patient/${federated}`;
  };
  const entries = once(merged.entries);
  linkRecords(entries, state.patients, (s) => `${baseOf(req)}/${s}`, shownId, reference);
  const shown = [...issues, ...failed];
  const path = req.url.slice(req.url.indexOf('/all/') + 4);
  return reply.type(FHIR_JSON).send(JSON.stringify({
    resourceType: 'Bundle',
    type: 'searchset',
    link: [{ relation: 'self', url: `${base}${path}` }, ...(next === undefined ? [] : [{ relation: 'next', url: `${base}/Patient/${EVERYTHING}?_page_token=${next}` }])],
    entry: [...entries, ...(shown.length === 0 ? [] : [{ resource: { resourceType: 'OperationOutcome', issue: shown }, search: { mode: 'outcome' } }])],
  }));
}

/** The resolution's AuditEvent: a search of Patient at the federated base, each record found a patient entity, the identifiers the query. */
function auditResolution(req: FastifyRequest, base: string, r: Awaited<ReturnType<Resolver['resolve']>>): void {
  const problems = r.outcomes.flatMap((o) => (o.status === 'ambiguous' || o.status === 'failed' ? [`source "${o.source}" ${o.status}: ${o.reason}`] : []));
  (req.audits ??= []).push(access(req, 'search-type', 'all', base, {
    outcome: r.outcomes.some((o) => o.status === 'failed') ? 8 : problems.length > 0 ? 4 : 0,
    ...(problems.length === 0 ? {} : { outcomeDesc: problems.join('; ') }),
    query: `GET Patient?identifier=${r.identifiers.join(',')}${r.cached ? ' (cached)' : ''}`,
    patients: r.outcomes.flatMap((o) => (o.status === 'found' ? [`${baseOf(req)}/${o.source}/Patient/${o.id}`] : [])),
  }));
}

app.get(`/fhir/all/Patient/:id/${EVERYTHING}`, (req, reply) => everything(req, reply, (req.params as { id: string }).id));
app.get(`/fhir/all/Patient/${EVERYTHING}`, (req, reply) => everything(req, reply, undefined));

process.on('SIGUSR1', () => console.log(`audited ${audit.delivered} ${audit.lastBytes} ${audit.totalBytes}`));
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
