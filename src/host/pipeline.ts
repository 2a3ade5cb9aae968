/**
 * The request pipeline behind `app.handler`: request id, CORS (preflights first), routing, API keys,
 * the endpoint, error replies, the access log line.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { FhirgateError, isFhirgateError } from '../errors.js';
import { isThenable } from '../lib/is-thenable.js';
import type { HTTPMethod, OpenAPIOperation, PublicError, RefusedRequest, RouteReply } from '../mount/index.js';
import type { APIKeyCheck } from './api-keys.js';
import { logUserCodeFailure } from '../lib/user-code-failure.js';
import { describeError, replyToPublicError } from './error-reply.js';
import { holdLinesOf } from './held-lines.js';
import type { ResolvedOptions } from './options.js';
import { publicOrigin } from './public-origin.js';
import { HostRequest } from './request-context.js';
import { pickRequestId } from './request-id.js';
import type { TraceContext } from '../lib/trace-context.js';
import { childSpan, readTraceparent, startTrace } from '../lib/trace-context.js';
import { runInTrace } from '../lib/trace-scope.js';
import { endSpanWithError, isRecording, SPAN_KIND, startSpan, type TracerLike } from '../lib/tracer.js';
import { settleBody } from './settle-body.js';
import type { RouteMatch } from './router.js';
import { splitPath } from './router.js';
import type { InFlight } from './shutdown.js';

/** A routable endpoint, whatever it came from (default route, component route, custom route). */
export interface Endpoint {
  readonly method: HTTPMethod;
  /** The full route path (`/fhir/transform/:type/:id`). */
  readonly path: string;
  /** The component prefix (for `RouteRequest.baseUrl`), `''` for the host's own and custom routes. */
  readonly prefix: string;
  /** Answered without an API key. */
  readonly public: boolean;
  /** The mounted component's own error reply, for errors of its routes; the JSON error body when absent. */
  readonly errorReply?: (error: PublicError, request?: RefusedRequest) => RouteReply;
  /** Documentation for `/openapi.json`; component routes are documented by their component instead. */
  readonly operation?: OpenAPIOperation;
  run(request: HostRequest): RouteReply | Promise<RouteReply>;
}

/** What the pipeline needs from the app. */
export interface PipelineState {
  readonly options: ResolvedOptions;
  /** The current router's `match` (the app swaps routers when routes are added). */
  match(method: string, rawPath: string): RouteMatch<Endpoint>;
  readonly apiKeys: APIKeyCheck;
  readonly inFlight: InFlight;
  /** The prefix and error reply of the mounted component whose prefix `rawPath` is under (the longest), if it has one. */
  errorReplyAt(rawPath: string): Pick<Endpoint, 'prefix' | 'errorReply'> | undefined;
  closing(): boolean;
  /** Called once per answered request with the route template (`null`: none matched), when metrics are on. */
  observe?(method: string, route: string | null, status: number, seconds: number): void;
}

/** Splits `req.url` (origin-form or absolute-form) into the raw path and the raw query. */
function splitUrl(target: string): { rawPath: string; rawQuery: string } {
  let rest = target;
  if (!rest.startsWith('/')) {
    const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(rest);
    rest = match === null ? rest : match[1] || '/';
  }
  const q = rest.indexOf('?');
  return q === -1 ? { rawPath: rest, rawQuery: '' } : { rawPath: rest.slice(0, q), rawQuery: rest.slice(q + 1) };
}

const normalized = (path: string): string => splitPath(path).join('/');

/**
 * Writes a reply in one `writeHead` (the fast path of `node:http`): the host's `base` headers, then the
 * reply's (names lower-cased, so that a reply's header replaces the host's), then `Content-Length`.
 * `HEAD` and 204/304 answers get no body.
 */
export function send(res: ServerResponse, reply: RouteReply, head: boolean, base: Record<string, string>): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = reply.status ?? 200;
  const body = reply.body;
  // Object.assign, not a spread: on Node 20 an object made by `{ ...base }` turns slow when properties
  // are then added to it (about 0.5 µs here, a tenth of the host's overhead over bare node:http).
  const headers: Record<string, string> = Object.assign({}, base);
  const own = reply.headers;
  if (own !== undefined) for (const name in own) headers[name.toLowerCase()] = own[name]!;
  const bodiless = status === 204 || status === 304;
  // A string body stays a string: Node then writes headers and body as one chunk.
  if (!bodiless) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : (body?.byteLength ?? 0));
  res.writeHead(status, headers);
  res.end(head || bodiless ? undefined : body);
}

/**
 * The value of header `name` (lower case) from a raw header list, without building `req.headers`;
 * `undefined` when it is absent or repeated (a repeated id is not a sane one).
 */
function rawHeader(raw: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    if (value !== undefined) return undefined;
    value = raw[i + 1];
  }
  return value;
}

function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  return { error: error.message, error_name: error.name, ...(isFhirgateError(error) ? { code: error.code } : {}) };
}

/**
 * The request's trace context: a new span in the caller's trace when its `traceparent` is valid (with its
 * `tracestate`), else a new trace. An invalid `traceparent` is ignored, never echoed or refused. With a
 * tracer, the new span is the tracer's server span (named by the method until the route is known).
 */
function traceOf(req: IncomingMessage, method: string, rawPath: string, tracer: TracerLike | undefined): TraceContext {
  // req.headers (built on first read) only when there is a traceparent to continue.
  const traceparent = rawHeader(req.rawHeaders, 'traceparent');
  const incoming = traceparent === undefined ? undefined : readTraceparent(traceparent, req.headers['tracestate']);
  if (tracer === undefined) return incoming === undefined ? startTrace() : childSpan(incoming);
  const scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
  return startSpan(tracer, method, SPAN_KIND.server, incoming, { 'http.request.method': method, 'url.path': rawPath, 'url.scheme': scheme });
}

/**
 * Ends the request's server span, if it has one: `http.route` and the name `{method} {route}` once
 * routed, the status, and for a 5xx `error.type` (the error's `ERR_` code, else the status).
 */
function endServerSpan(x: InboundExchange, status: number, error: unknown): void {
  const span = x.trace.span;
  if (span === undefined) return;
  if (!isRecording(span)) return span.end();
  if (x.route !== null) {
    span.setAttribute('http.route', x.route);
    span.updateName(`${x.method} ${x.route}`);
  }
  if (isFhirgateError(error, 'ERR_ABORTED')) return endSpanWithError(span, 'ERR_ABORTED', 'the client went away');
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) endSpanWithError(span, isFhirgateError(error) ? error.code : String(status));
  else span.end();
}

/** Builds the `(req, res)` listener. */
export function createPipeline(state: PipelineState): (req: IncomingMessage, res: ServerResponse) => void {
  const publicPaths = new Set(state.options.publicPaths.map(normalized));
  return (req, res) => {
    try {
      handle(state, publicPaths, req, res);
    } catch {
      res.destroy();
    }
  };
}

/** One request on its way through the pipeline. */
interface InboundExchange {
  readonly state: PipelineState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly trace: TraceContext;
  readonly method: string;
  readonly rawPath: string;
  readonly base: Record<string, string>;
  readonly started: number;
  endpoint: Endpoint | undefined;
  route: string | null;
  request: HostRequest | undefined;
}

/**
 * Runs one request. An endpoint that answers synchronously is answered in the same tick, without a
 * promise or a closure: a CPU profile of the transform endpoint showed the `async` wrapper, its `.catch`,
 * the microtask hop and the per-request arrow functions as a visible share of the host's overhead over
 * bare `node:http`.
 */
function handle(state: PipelineState, publicPaths: ReadonlySet<string>, req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  const { options } = state;
  const requestId = pickRequestId(rawHeader(req.rawHeaders, 'x-request-id'));
  const method = (req.method ?? 'GET').toUpperCase();
  const { rawPath, rawQuery } = splitUrl(req.url ?? '/');
  const trace = traceOf(req, method, rawPath, options.tracer);
  const base: Record<string, string> = { 'x-request-id': requestId, 'x-trace-id': trace.traceId, 'x-content-type-options': 'nosniff' };
  if (options.cors !== undefined) Object.assign(base, options.cors.headersFor(req.headers.origin));
  const x: InboundExchange = { state, req, res, requestId, trace, method, rawPath, base, started, endpoint: undefined, route: null, request: undefined };
  state.inFlight.enter();
  let answer: RouteReply | PromiseLike<RouteReply>;
  try {
    answer = runInTrace(trace, dispatch, x, publicPaths, rawQuery);
  } catch (error) {
    return finish(x, false, error);
  }
  if (!isThenable<RouteReply>(answer)) return finish(x, true, answer);
  answer.then((reply) => finish(x, true, reply), (error: unknown) => finish(x, false, error));
}

/** Preflight, routing, the API key, then the endpoint; throws what is answered as an error. */
function dispatch(x: InboundExchange, publicPaths: ReadonlySet<string>, rawQuery: string): RouteReply | PromiseLike<RouteReply> {
  const { state, req, method, rawPath, base } = x;
  const { options } = state;
  if (state.closing()) base['connection'] = 'close';
  const preflight = options.cors?.preflight(method, req.headers);
  if (preflight !== undefined) return preflight;
  const match = state.match(method, rawPath);
  // Known before the API key is checked, so that a refused request is counted under its route.
  if (match.kind === 'found') x.route = match.pattern;
  const open = state.apiKeys.enabled && ((match.kind === 'found' && match.handler.public) || publicPaths.has(normalized(rawPath)));
  if (state.apiKeys.enabled && !open && !state.apiKeys.accepts(req.headers)) {
    base['www-authenticate'] = 'Bearer';
    throw new FhirgateError('ERR_UNAUTHORIZED', 'an API key is required (Authorization: Bearer <key> or X-API-Key)', { status: 401 });
  }
  if (match.kind === 'not-found') throw new FhirgateError('ERR_NOT_FOUND', `no route for ${method} ${rawPath}`, { status: 404 });
  if (match.kind === 'method-not-allowed') {
    base['allow'] = match.allow.join(', ');
    throw new FhirgateError('ERR_METHOD_NOT_ALLOWED', `${method} is not allowed here; allowed: ${match.allow.join(', ')}`, { status: 405 });
  }
  const endpoint = (x.endpoint = match.handler);
  const request = (x.request = new HostRequest({ req, res: x.res, rawPath, rawQuery, params: match.params, prefix: endpoint.prefix, requestId: x.requestId, trace: x.trace, logger: options.logger, bodyLimit: options.bodyLimit, origin: options, inFlight: state.inFlight }));
  return endpoint.run(request);
}

/** What a component's `errorReply` is told of the request it answers. */
function refusedRequest(x: InboundExchange, prefix: string): RefusedRequest {
  const { req, rawPath } = x;
  const path = rawPath.startsWith(prefix) ? rawPath.slice(prefix.length) : rawPath;
  return { method: x.method, path, headers: req.headers, requestId: x.requestId, trace: x.trace, remoteAddress: req.socket.remoteAddress, baseUrl: `${publicOrigin(req, x.state.options)}${prefix}` };
}

/** Settles the unread body (drains it or closes the connection), then sends `reply`. */
function answerWith(x: InboundExchange, reply: RouteReply): void {
  Object.assign(x.base, settleBody(x.req, x.request?.bodyLimit ?? x.state.options.bodyLimit));
  send(x.res, reply, x.method === 'HEAD', x.base);
}

/**
 * Sends the reply (or the error reply when there is none or it cannot be sent), then the access log
 * line. Every answer, early ones included, first settles the unread body (drains it or closes the
 * connection). A client that went away is a client event, logged once by the access line.
 */
function finish(x: InboundExchange, ok: boolean, value: unknown): void {
  const { state, req, res, requestId, method, rawPath, base } = x;
  const { options } = state;
  let clientGone = false;
  let failure: unknown;
  try {
    if (ok) {
      try {
        return answerWith(x, value as RouteReply);
      } catch (error) {
        value = error;
      }
    }
    if (isFhirgateError(value, 'ERR_ABORTED') && (req.destroyed || res.destroyed)) {
      // The client went away (mid-body, or before the answer): nothing to answer; the access line says it.
      clientGone = true;
      failure = value;
      return;
    }
    failure = value;
    const described = describeError(value, requestId);
    if (described.status >= 500) logUserCodeFailure(options.logger, 'error', 'request failed', { request_id: requestId, trace_id: x.trace.traceId, route: x.route, status: described.status, ...errorFields(value) }, value);
    if (described.status === 413) base['connection'] = 'close';
    const at = x.endpoint ?? state.errorReplyAt(rawPath);
    const own = at?.errorReply;
    answerWith(x, replyToPublicError(described, own === undefined ? undefined : (error) => own(error, refusedRequest(x, at!.prefix)), options.logger));
  } catch {
    res.destroy();
  } finally {
    state.inFlight.leave(x.request);
    const elapsed = performance.now() - x.started;
    state.observe?.(method, x.route, res.statusCode, elapsed / 1000);
    endServerSpan(x, res.statusCode, failure);
    const line: Record<string, unknown> = { request_id: requestId, trace_id: x.trace.traceId, method, route: x.route, status: clientGone ? null : res.statusCode };
    if (clientGone) line['client_gone'] = true;
    line['duration_ms'] = Math.round(elapsed * 10) / 10;
    holdLinesOf(options.logger);
    options.logger.info('request', line);
  }
}
