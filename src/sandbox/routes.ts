/**
 * Which handler answers a request: the FHIR interactions under `/fhir/R4` (transaction and batch
 * Bundles posted to the base included), the token endpoint at
 * `/oauth2/token`, and 404/405 answers for everything else. A resource type that is not an R4B
 * type answers 404 (`not-supported`); a malformed id answers 400.
 * @module
 */
import { FhirgateError } from '../errors.js';
import { isFHIRId, isResourceType, type ResourceType } from '../fhir/index.js';
import type { IssueType } from '../fhir/operation-outcome.js';
import { capabilityStatement, smartConfiguration } from './capability.js';
import type { SandboxRoute } from './context.js';
import { postBundle } from './bundle.js';
import { bulkRoute } from './bulk-routes.js';
import { create, read, remove, search, update } from './fhir-routes.js';
import { readBytes } from '../lib/read-body.js';
import { sendJSON, sendOutcome } from './reply.js';
import { answerTokenRequest } from './token-endpoint.js';

/** The path prefix of the FHIR base. */
export const FHIR_PATH = '/fhir/R4';
/** The path of the token endpoint. */
export const TOKEN_PATH = '/oauth2/token';

const fail = (status: number, code: IssueType, message: string, headers: Record<string, string> = {}): SandboxRoute => ({
  kind: 'other',
  public: true,
  run: (_ctx, _req, res) => sendOutcome(res, status, code, message, headers),
});

const notAllowed = (allow: string): SandboxRoute => fail(405, 'not-supported', 'method not allowed here', { allow });
const noEndpoint = (): SandboxRoute => fail(404, 'not-found', 'no such FHIR endpoint');

const tokenRoute: SandboxRoute = {
  kind: 'token',
  public: true,
  async run(ctx, req, res) {
    const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
    let body: Buffer;
    try {
      body = await readBytes(req, ctx.options.bodyLimit);
    } catch {
      return sendJSON(res, 413, { error: 'invalid_request', error_description: 'the body is too large' }, noStore, 'application/json; charset=utf-8');
    }
    const answer = await answerTokenRequest(ctx, req.headers, body);
    sendJSON(res, answer.status, answer.body, { ...answer.headers, ...noStore }, 'application/json; charset=utf-8');
  },
};

function checkId(id: string): string {
  if (!isFHIRId(id)) throw new FhirgateError('ERR_INVALID_ID', 'the id in the URL is not a FHIR id', { status: 400 });
  return id;
}

function typeRoute(method: string, type: ResourceType): SandboxRoute {
  if (method === 'GET') return { kind: 'search', public: false, run: (ctx, req, res, q) => search(ctx, req, res, type, q) };
  if (method === 'POST') return { kind: 'create', public: false, run: (ctx, req, res) => create(ctx, req, res, type) };
  return notAllowed('GET, HEAD, POST');
}

function instanceRoute(method: string, type: ResourceType, rawId: string): SandboxRoute {
  if (rawId === '_search') {
    if (method !== 'POST') return notAllowed('POST');
    return { kind: 'search', public: false, run: (ctx, req, res, q) => search(ctx, req, res, type, q) };
  }
  const target = () => ({ type, id: checkId(rawId) });
  switch (method) {
    case 'GET': return { kind: 'read', public: false, run: (ctx, _req, res) => read(ctx, res, target()) };
    case 'PUT': return { kind: 'update', public: false, run: (ctx, req, res) => update(ctx, req, res, target()) };
    case 'DELETE': return { kind: 'delete', public: false, run: (ctx, _req, res) => remove(ctx, res, target()) };
    default: return notAllowed('GET, HEAD, PUT, DELETE');
  }
}

function fhirRoute(method: string, rest: readonly string[]): SandboxRoute {
  const [first = '', second, third, fourth] = rest;
  if (rest.length === 1 && first === 'metadata') {
    return method === 'GET' ? { kind: 'metadata', public: true, run: (ctx, _q, res) => sendJSON(res, 200, capabilityStatement(ctx)) } : notAllowed('GET, HEAD');
  }
  if (rest.length === 2 && first === '.well-known' && second === 'smart-configuration') {
    return method === 'GET'
      ? { kind: 'metadata', public: true, run: (ctx, _q, res) => sendJSON(res, 200, smartConfiguration(ctx), {}, 'application/json; charset=utf-8') }
      : notAllowed('GET, HEAD');
  }
  const bulk = bulkRoute(method, rest);
  if (bulk !== undefined) return bulk;
  if (rest.length === 0 && method === 'POST') return { kind: 'bundle', public: false, run: (ctx, req, res) => postBundle(ctx, req, res) };
  if (rest.length === 0 || rest.length === 3 || rest.length > 4) return noEndpoint();
  if (!isResourceType(first)) return fail(404, 'not-supported', `"${first}" is not a resource type this server supports`);
  if (second === undefined) return typeRoute(method, first);
  if (third === undefined) return instanceRoute(method, first, second);
  if (third !== '_history' || fourth === undefined) return noEndpoint();
  if (method !== 'GET') return notAllowed('GET, HEAD');
  const vid = /^[1-9]\d{0,8}$/.test(fourth) ? Number(fourth) : 0;
  return { kind: 'vread', public: false, run: (ctx, _req, res) => read(ctx, res, { type: first, id: checkId(second), vid }) };
}

/** The route of a request, from its raw URL. Malformed percent-encoding anywhere in it answers 400. */
export function resolveRoute(method: string, rawUrl: string): { route: SandboxRoute; query: URLSearchParams } {
  const mark = rawUrl.indexOf('?');
  const rawPath = mark < 0 ? rawUrl : rawUrl.slice(0, mark);
  const rawQuery = mark < 0 ? '' : rawUrl.slice(mark + 1);
  let segments: string[];
  try {
    segments = rawPath.split('/').filter((s) => s !== '').map(decodeURIComponent);
    decodeURIComponent(rawQuery.replace(/\+/g, ' '));
  } catch {
    return { route: fail(400, 'invalid', 'the URL has malformed percent-encoding'), query: new URLSearchParams() };
  }
  const verb = method === 'HEAD' ? 'GET' : method;
  const query = new URLSearchParams(rawQuery);
  const path = `/${segments.join('/')}`;
  if (path === TOKEN_PATH) return { route: verb === 'POST' ? tokenRoute : notAllowed('POST'), query };
  if (path === FHIR_PATH || path.startsWith(`${FHIR_PATH}/`)) return { route: fhirRoute(verb, segments.slice(2)), query };
  return { route: fail(404, 'not-found', 'nothing here; the FHIR base is /fhir/R4'), query };
}
