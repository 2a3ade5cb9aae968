/**
 * User routes (`app.route`, `app.get`, ...): their options, their OpenAPI operation and their endpoint.
 * @module
 */
import { FhirgateError } from '../errors.js';
import { keysOf, onlyKnownKeys } from '../lib/options.js';
import type { HTTPMethod, OpenAPIOperation, OpenAPIParameter, OpenAPIResponse } from '../mount/index.js';
import type { ServiceAPI } from './app.js';
import { isToken, resolveDeps } from './inject.js';
import type { Deps, InjectMap } from './inject.js';
import { ERROR_RESPONSE } from './openapi.js';
import type { Endpoint } from './pipeline.js';
import { toRouteReply } from './reply.js';
import { toRouteContext } from './request-context.js';
import type { RouteContext } from './request-context.js';

/** A documented query parameter of a custom route. */
export interface QueryParameterSpec {
  description?: string;
  /** Default false. */
  required?: boolean;
  /** Default `'string'`. */
  type?: 'string' | 'integer' | 'number' | 'boolean';
  /** The key may repeat (`?sources=a&sources=b`). Default false. */
  array?: boolean;
}

/** Options of a custom route. */
export interface CustomRouteOptions<I extends InjectMap = InjectMap> {
  /** Dependency tokens resolved per request into `ctx.deps`. */
  inject?: I;
  /** One line for `/docs`. */
  summary?: string;
  description?: string;
  /** The query parameters, for `/openapi.json` and `/docs` (nothing is enforced). */
  query?: Readonly<Record<string, QueryParameterSpec>>;
  /** Answer without an API key. Default false. */
  public?: boolean;
  /** Groups in `/docs`. Default `['custom']`. */
  tags?: readonly string[];
  /**
   * More answers for `/openapi.json` and `/docs`, by status, with the headers they carry (name →
   * description), e.g. `{ 201: { description: 'Created', headers: { Location: 'the new record' } } }`.
   * Documentation only, like `query`.
   */
  responses?: Readonly<Record<string, { description: string; headers?: Readonly<Record<string, string>> }>>;
}

/** A custom route handler: a returned value is JSON 200, `undefined` is 204, `reply()` sets both. */
export type CustomHandler<D> = (ctx: RouteContext<D>) => unknown;

/** The keys of {@link CustomRouteOptions} and of a {@link QueryParameterSpec}; any other is refused with the nearest of these. */
export const ROUTE_OPTION_KEYS = Object.freeze({
  route: keysOf<CustomRouteOptions>({ inject: true, summary: true, description: true, query: true, public: true, tags: true, responses: true }),
  query: keysOf<QueryParameterSpec>({ description: true, required: true, type: true, array: true }),
});

const METHODS: readonly HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const TYPES = ['string', 'integer', 'number', 'boolean'];

function queryParameter(name: string, spec: QueryParameterSpec): OpenAPIParameter {
  if (typeof spec !== 'object' || spec === null) throw new TypeError(`options.query.${name} must be an object`);
  onlyKnownKeys(spec, ROUTE_OPTION_KEYS.query, `options.query.${name}`);
  const type = spec.type ?? 'string';
  if (!TYPES.includes(type)) throw new RangeError(`options.query.${name}.type must be one of ${TYPES.join(', ')}`);
  const array = spec.array === true;
  return {
    name,
    in: 'query',
    required: spec.required === true,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    schema: array ? { type: 'array', items: { type } } : { type },
    ...(array ? { style: 'form', explode: true } : {}),
  };
}

function operationFor(method: HTTPMethod, options: CustomRouteOptions): OpenAPIOperation {
  const parameters = Object.entries(options.query ?? {}).map(([name, spec]) => queryParameter(name, spec));
  return {
    ...(options.summary === undefined ? {} : { summary: options.summary }),
    ...(options.description === undefined ? {} : { description: options.description }),
    tags: [...(options.tags ?? ['custom'])],
    parameters,
    ...(method === 'GET' || method === 'DELETE' ? {} : { requestBody: { required: false, content: { 'application/json': { schema: {} } } } }),
    responses: {
      200: { description: 'The handler\'s value as JSON', content: { 'application/json': { schema: {} } } },
      204: { description: 'The handler returned nothing' },
      ...documentedResponses(options.responses ?? {}),
      default: ERROR_RESPONSE,
    },
  };
}

function documentedResponses(given: NonNullable<CustomRouteOptions['responses']>): Record<string, OpenAPIResponse> {
  if (typeof given !== 'object' || given === null) throw new TypeError('options.responses must be an object');
  return Object.fromEntries(Object.entries(given).map(([status, r]) => {
    if (!/^[1-5]\d\d$/.test(status)) throw new RangeError(`options.responses: "${status}" is not an HTTP status`);
    if (typeof r?.description !== 'string') throw new TypeError(`options.responses.${status}.description must be a string`);
    const headers = Object.entries(r.headers ?? {}).map(([name, description]) => [name, { description: String(description), schema: { type: 'string' } }]);
    const response: OpenAPIResponse = { description: r.description, ...(headers.length === 0 ? {} : { headers: Object.fromEntries(headers) }) };
    return [status, { ...response, content: { 'application/json': { schema: {} } } }];
  }));
}

/** A custom route ready to mount, with the tokens it needs (checked by `listen()`). */
export interface CustomEndpoint extends Endpoint {
  readonly inject: InjectMap;
}

/** Validates a custom route and builds its endpoint. */
export function customEndpoint<I extends InjectMap>(
  app: ServiceAPI,
  method: string,
  path: string,
  options: CustomRouteOptions<I>,
  handler: CustomHandler<Deps<I>>,
): CustomEndpoint {
  const upper = typeof method === 'string' ? (method.toUpperCase() as HTTPMethod) : undefined;
  if (upper === undefined || !METHODS.includes(upper)) throw new RangeError(`route "method" must be one of ${METHODS.join(', ')}`);
  if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError('route "path" must be a string starting with "/"');
  if (typeof options !== 'object' || options === null) throw new TypeError('route "options" must be an object');
  onlyKnownKeys(options, ROUTE_OPTION_KEYS.route, 'options');
  if (typeof handler !== 'function') throw new TypeError('route "handler" must be a function');
  const inject: InjectMap = Object.freeze({ ...(options.inject ?? {}) });
  for (const [key, token] of Object.entries(inject)) {
    if (!isToken(token)) throw new TypeError(`options.inject.${key} must come from getGateway(), getAllGateways() or getApp()`);
  }
  const label = `${upper} ${path}`;
  return {
    method: upper,
    path,
    prefix: '',
    public: options.public === true,
    inject,
    operation: operationFor(upper, options),
    run: async (request) => {
      let deps: Deps<I>;
      try {
        deps = resolveDeps(inject as I, app);
      } catch (cause) {
        request.log.error('dependency not resolvable', { route: label, error: (cause as Error).message });
        throw new FhirgateError('ERR_HANDLER', `a dependency of ${label} could not be resolved`, { cause, status: 500 });
      }
      return toRouteReply(await handler(toRouteContext(request, deps)));
    },
  };
}
