/**
 * The per-request context the host builds once and hands, in two shapes, to component routes
 * ({@link RouteRequest} of `src/mount.ts`) and to custom routes ({@link RouteContext}).
 * @module
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { FhirgateError } from '../errors.js';
import type { Logger, RouteRequest } from '../mount/index.js';
import { readBytes, readChunks } from '../lib/read-body.js';
import type { TraceContext } from '../lib/trace-context.js';
import { parseJSONBody } from './json-body.js';
import { bindLogger } from './logger.js';
import { publicOrigin } from './public-origin.js';
import type { OriginPolicy } from './public-origin.js';

/** What a custom route handler gets. */
export interface RouteContext<D = Record<string, never>> {
  /** The request method (`HEAD` arrives as `GET`). */
  readonly method: string;
  /** The decoded path parameters, in a null-prototype object. */
  readonly params: Readonly<Record<string, string>>;
  /** The query in a null-prototype object; a repeated key gives an array. */
  readonly query: Readonly<Record<string, string | string[]>>;
  /** The request headers, names in lower case. */
  readonly headers: IncomingHttpHeaders;
  /** The resolved `inject` tokens. */
  readonly deps: D;
  /** Aborted when the client goes away or the host shuts down past its grace period. */
  readonly signal: AbortSignal;
  /** The request id, echoed in `X-Request-ID`. */
  readonly requestId: string;
  /** The request's W3C trace context (see `RouteRequest.trace`); its `traceId` is echoed in `X-Trace-ID`. */
  readonly trace: TraceContext;
  /** The host's logger with the request id and the trace id bound. */
  readonly log: Logger;
  /** The absolute URL the caller used. */
  readonly url: URL;
  /**
   * The JSON body, read on first call under the host's `bodyLimit`: `undefined` when empty, 413 past the
   * limit, 415 when the `Content-Type` is not JSON, 400 when malformed. Later calls give the same value.
   */
  json(): Promise<unknown>;
  /** The raw body under the same limit. Later calls give the same bytes. */
  bytes(): Promise<Buffer>;
}

/** What the host knows when it builds a {@link HostRequest}. */
export interface HostRequestInit {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly params: Record<string, string>;
  readonly prefix: string;
  readonly requestId: string;
  /** The request's trace context (see `RouteRequest.trace`). */
  readonly trace: TraceContext;
  /** The host's logger; {@link HostRequest.log} binds the request id and trace id to it on first use. */
  readonly logger: Logger;
  readonly bodyLimit: number;
  /** How {@link HostRequest.origin} is found. */
  readonly origin: OriginPolicy;
  /** Told when the request gets an abort signal, so that a shutdown past its grace period can abort it. */
  readonly inFlight?: { watch(request: HostRequest): void };
}

/** The controller of each connection's {@link HostRequest.connectionSignal}, made on first use. */
const connectionControllers = new WeakMap<Socket, AbortController>();

const clientGone = (): FhirgateError => new FhirgateError('ERR_ABORTED', 'the client went away');

/**
 * One request as the host sees it. Implements the {@link RouteRequest} components get; custom routes
 * get {@link toRouteContext}'s view of it.
 */
export class HostRequest implements RouteRequest {
  readonly #init: HostRequestInit;
  #controller: AbortController | undefined;
  #query: URLSearchParams | undefined;
  #body: Promise<Buffer> | undefined;
  #streamed = false;
  #readLimit = 0;
  #log: Logger | undefined;

  constructor(init: HostRequestInit) {
    this.#init = init;
  }

  get method(): string {
    const method = this.#init.req.method ?? 'GET';
    return method === 'HEAD' ? 'GET' : method;
  }
  get params(): Readonly<Record<string, string>> {
    return this.#init.params;
  }
  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.#init.rawQuery));
  }
  get headers(): IncomingHttpHeaders {
    return this.#init.req.headers;
  }
  get requestId(): string {
    return this.#init.requestId;
  }
  get trace(): TraceContext {
    return this.#init.trace;
  }
  get remoteAddress(): string | undefined {
    return this.#init.req.socket.remoteAddress;
  }
  get log(): Logger {
    return (this.#log ??= bindLogger(this.#init.logger, { request_id: this.#init.requestId, trace_id: this.#init.trace.traceId }));
  }

  /** Where the host lives as callers should see it: see {@link publicOrigin}. */
  get origin(): string {
    return publicOrigin(this.#init.req, this.#init.origin);
  }

  get url(): URL {
    const { rawPath, rawQuery } = this.#init;
    return new URL(`${this.origin}${rawPath}${rawQuery === '' ? '' : `?${rawQuery}`}`);
  }
  get baseUrl(): string {
    return `${this.origin}${this.#init.prefix}`;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = (this.#controller = new AbortController());
      const { res, inFlight } = this.#init;
      inFlight?.watch(this);
      if (res.closed && !res.writableFinished) controller.abort(clientGone());
      res.once('close', () => {
        if (!res.writableFinished) controller.abort(clientGone());
      });
    }
    return this.#controller.signal;
  }

  get connectionSignal(): AbortSignal {
    const socket = this.#init.req.socket;
    let controller = connectionControllers.get(socket);
    if (controller === undefined) {
      const made = (controller = new AbortController());
      connectionControllers.set(socket, made);
      if (socket.destroyed) made.abort(clientGone());
      else socket.once('close', () => made.abort(clientGone()));
    }
    return controller.signal;
  }

  /** Aborts {@link signal} (used by the host when the shutdown grace period is over). */
  abort(reason: unknown): void {
    this.#controller?.abort(reason);
  }

  /** The largest body limit in force for this request: the host's, or a larger one a route read under. */
  get bodyLimit(): number {
    return Math.max(this.#init.bodyLimit, this.#readLimit);
  }

  bytes(limit: number = this.#init.bodyLimit): Promise<Buffer> {
    this.#readLimit = Math.max(this.#readLimit, limit);
    if (this.#streamed) return Promise.reject(new FhirgateError('ERR_HANDLER', 'the request body was already read as chunks'));
    return (this.#body ??= readBytes(this.#init.req, limit));
  }

  chunks(limit: number = this.#init.bodyLimit): AsyncIterable<Buffer> {
    if (this.#streamed || this.#body !== undefined) throw new FhirgateError('ERR_HANDLER', 'the request body was already read');
    this.#streamed = true;
    this.#readLimit = Math.max(this.#readLimit, limit);
    return readChunks(this.#init.req, limit);
  }
}

/** The custom-route view of a {@link HostRequest}, with `deps` resolved. */
export function toRouteContext<D>(request: HostRequest, deps: D): RouteContext<D> {
  return new CustomRouteContext(request, deps);
}

class CustomRouteContext<D> implements RouteContext<D> {
  readonly deps: D;
  readonly #request: HostRequest;
  #query: Record<string, string | string[]> | undefined;
  #json: Promise<unknown> | undefined;

  constructor(request: HostRequest, deps: D) {
    this.#request = request;
    this.deps = deps;
  }

  get method(): string {
    return this.#request.method;
  }
  get params(): Readonly<Record<string, string>> {
    return this.#request.params;
  }
  get headers(): IncomingHttpHeaders {
    return this.#request.headers;
  }
  get requestId(): string {
    return this.#request.requestId;
  }
  get trace(): TraceContext {
    return this.#request.trace;
  }
  get log(): Logger {
    return this.#request.log;
  }
  get signal(): AbortSignal {
    return this.#request.signal;
  }
  get url(): URL {
    return this.#request.url;
  }
  get query(): Readonly<Record<string, string | string[]>> {
    if (this.#query !== undefined) return this.#query;
    const query: Record<string, string | string[]> = Object.create(null);
    for (const [key, value] of this.#request.query) {
      const seen: string | string[] | undefined = query[key];
      if (Array.isArray(seen)) seen.push(value);
      else query[key] = seen === undefined ? value : [seen, value];
    }
    return (this.#query = query);
  }

  json(): Promise<unknown> {
    return (this.#json ??= this.#request.bytes().then((bytes) => parseJSONBody(bytes, this.#request.headers['content-type'])));
  }
  bytes(): Promise<Buffer> {
    return this.#request.bytes();
  }
}
