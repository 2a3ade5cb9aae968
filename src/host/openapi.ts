/**
 * The OpenAPI 3.1 document of every route: the host's defaults, each component's part under its
 * prefix, and the custom routes.
 * @module
 */
import type { HTTPMethod, OpenAPIOperation, OpenAPIParameter } from '../mount/index.js';
import { splitPath } from './router.js';
import { VERSION } from '../version.js';

/** One operation to document, its path absolute and in `{param}` style. */
export interface DocumentedOperation {
  readonly method: HTTPMethod;
  readonly path: string;
  readonly operation: OpenAPIOperation;
  /** Answered without an API key. */
  readonly public: boolean;
}

/** What the document says about the API. */
export interface APIInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
  /** API keys are required (adds the security schemes). */
  readonly secured: boolean;
}

/** Turns a route path into OpenAPI style: `/a/:id/` → `/a/{id}`; the empty path is `/`. */
export function toOpenAPIPath(path: string): string {
  return `/${splitPath(path).map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`;
}

/** The path parameter names of an OpenAPI-style path. */
function pathParams(path: string): string[] {
  return splitPath(path).filter((s) => /^\{.+\}$/.test(s)).map((s) => s.slice(1, -1));
}

/** Adds a required string declaration for every `{param}` of `path` the operation leaves undeclared. */
function withPathParams(path: string, parameters: readonly OpenAPIParameter[] = []): OpenAPIParameter[] {
  const declared = new Set(parameters.filter((p) => p.in === 'path').map((p) => p.name));
  const missing = pathParams(path).filter((name) => !declared.has(name));
  return [...parameters, ...missing.map((name): OpenAPIParameter => ({ name, in: 'path', required: true, schema: { type: 'string' } }))];
}

function operationIdFor(method: string, path: string): string {
  const words = splitPath(path).map((s) => s.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_')).filter((s) => s !== '');
  return [method.toLowerCase(), ...words].join('_') || method.toLowerCase();
}

const SCHEMAS = Object.freeze({
  Error: {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } } },
  },
});

/** The response object of the host's JSON errors (`{ error: { code, message } }`), for `responses.default`. */
export const ERROR_RESPONSE = Object.freeze({
  description: 'An error: `{ error: { code, message } }`',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const REQUEST_ID_HEADER = Object.freeze({
  description: "the request's id (the caller's X-Request-ID when it is sane, else a new UUID); the log lines of the request carry it",
  schema: { type: 'string' },
});

/** Every answer of the host carries `X-Request-ID`, so every documented response declares it. */
function withRequestId(responses: OpenAPIOperation['responses']): OpenAPIOperation['responses'] {
  return Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, { ...r, headers: { 'X-Request-ID': REQUEST_ID_HEADER, ...r.headers } }]));
}

/**
 * Builds the OpenAPI 3.1 document. Operation ids are made unique (a clash gets `_2`, `_3`, ...); every
 * path parameter is declared; with `secured`, the Bearer and `X-API-Key` schemes apply to every
 * operation but the public ones.
 */
export function buildOpenAPI(info: APIInfo, operations: readonly DocumentedOperation[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const usedIds = new Set<string>();
  for (const { method, path, operation, public: open } of operations) {
    const base = operation.operationId ?? operationIdFor(method, path);
    let id = base;
    for (let n = 2; usedIds.has(id); n += 1) id = `${base}_${n}`;
    usedIds.add(id);
    const documented: Record<string, unknown> = { ...operation, operationId: id, parameters: withPathParams(path, operation.parameters), responses: withRequestId(operation.responses) };
    if (info.secured && open) documented['security'] = [];
    (paths[path] ??= {})[method.toLowerCase()] = documented;
  }
  const components: Record<string, unknown> = { schemas: SCHEMAS };
  const doc: Record<string, unknown> = {
    openapi: '3.1.0',
    // `version` is the API's own (an option); the extension names the fhirgate that serves it.
    info: { title: info.title, version: info.version, ...(info.description === '' ? {} : { description: info.description }), 'x-fhirgate-version': VERSION },
    paths,
    components,
  };
  if (info.secured) {
    components['securitySchemes'] = {
      bearerKey: { type: 'http', scheme: 'bearer', description: 'an API key as a Bearer token' },
      headerKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    };
    doc['security'] = [{ bearerKey: [] }, { headerKey: [] }];
  }
  return doc;
}
