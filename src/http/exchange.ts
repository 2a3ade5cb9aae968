/**
 * One HTTP exchange on `node:http`/`node:https`: send, buffer the answer up to a limit (or, with the
 * `stream` option, hand a 2xx body over unread), map every failure to a coded error. Never follows
 * redirects.
 * @module
 */
import { request as httpRequest } from 'node:http';
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { FhirgateError } from '../errors.js';
import { BufferedResponse, declaredLength } from './buffered-response.js';
import type { TimerHandle } from './coarse-timers.js';
import type { Deadline, EndListener } from './deadline.js';
import { requestEndChannel, requestStartChannel } from './diagnostics.js';
import { FORWARD_PROXY } from './origin-agent.js';
import type { OriginAgent } from './origin-agent.js';
import type { ProxyServer } from './proxy-options.js';
import { tlsFailure } from './tls-failure.js';
import { proxyAuthFailure } from './tunnel.js';
import type { CheckedRequestOptions, HTTPResponse, HTTPTarget } from './request-options.js';
import type { TryFailure } from './retry-policy.js';
import { USER_AGENT } from './user-agent.js';
import { childSpan, formatTraceparent, startTrace, type TraceContext } from '../lib/trace-context.js';
import { currentTrace } from '../lib/trace-scope.js';
import type { SpanLike } from '../lib/tracer.js';
import { endClientSpan, startClientSpan } from './client-span.js';

const failures = new WeakMap<Error, TryFailure>();

/**
 * How a failed try of {@link startExchange} failed, for the retry decision: `refused`, `reset` (reset, broken
 * pipe or hang-up before any response byte), `stale` (the same on a reused keep-alive socket: the
 * server had closed an idle connection) or `other`.
 */
export function tryFailureOf(err: unknown): { readonly failure: TryFailure } {
  return { failure: (err instanceof Error && failures.get(err)) || 'other' };
}

/**
 * Where one try reports its end: an error (`ERR_*`, with {@link tryFailureOf} telling how it failed) or
 * an answer. An object rather than a callback, so that a try needs no closure.
 */
export interface TryListener {
  tryDone(error: unknown, res: HTTPResponse | undefined): void;
  /** The tries of this request sent before this one (its client span's `http.resend_count`). */
  readonly resends: number;
}

/**
 * The mark on the options fhirgate hands to `http.request`/`https.request`: OpenTelemetry's `node:http`
 * instrumentation sees it in `ignoreOutgoingRequestHook` and leaves these requests to fhirgate's own
 * client spans (docs/observability.md).
 */
const FHIRGATE_REQUEST = Symbol.for('fhirgate.request');

/**
 * Sends one request and buffers its answer, within `deadline` (the caller's signal and the time-out),
 * then calls `listener.tryDone` once. `agent` (default `options.agent`) is the agent to send through: a
 * pool passes its own rather than copying the options per request. The socket is taken synchronously
 * (so that a pool that counts sockets sees the new one at once). Misuse that Node refuses at once (a
 * header it cannot send) throws.
 */
export function startExchange(target: HTTPTarget, options: CheckedRequestOptions, deadline: Deadline, listener: TryListener, agent: Agent | undefined = options.agent): void {
  if (deadline.over()) listener.tryDone(deadline.error(describe(options, target)), undefined);
  else new OutboundExchange(target, options, deadline, listener).start(agent);
}

/**
 * The state of one exchange. Its handlers are methods; it is its own abort and time-out listener, and
 * the listeners handed to Node are small anonymous arrows: one request creates no named closure.
 */
class OutboundExchange implements EndListener {
  readonly #target: HTTPTarget;
  readonly #options: CheckedRequestOptions;
  readonly #deadline: Deadline;
  readonly #listener: TryListener;
  /** When the request started, for the diagnostics channel (only read when it has subscribers). */
  #started = 0;
  #req: ClientRequest | undefined;
  /** The proxy an http request went to in absolute form, if any: its 407 is no upstream's answer. */
  #proxy: ProxyServer | undefined;
  #timer: TimerHandle | undefined;
  #settled = false;
  #responded = false;
  #first: Buffer | undefined;
  #chunks: Buffer[] | undefined;
  #size = 0;
  /** This try's OpenTelemetry client span, when the work that sends it has a tracer. */
  #span: SpanLike | undefined;

  constructor(target: HTTPTarget, options: CheckedRequestOptions, deadline: Deadline, listener: TryListener) {
    this.#target = target;
    this.#options = options;
    this.#deadline = deadline;
    this.#listener = listener;
  }

  start(agent: Agent | undefined): void {
    const target = this.#target;
    const options = this.#options;
    if (requestStartChannel.hasSubscribers || requestEndChannel.hasSubscribers) this.#started = performance.now();
    if (requestStartChannel.hasSubscribers) requestStartChannel.publish({ method: options.method, origin: target.origin, path: target.pathname });
    // The headers go as an object, not as Node's faster flat list: tracing instrumentations that wrap
    // http.request (OpenTelemetry's) copy options.headers with Object.assign to add theirs, which turns a
    // list into numbered headers and loses the request's own.
    // An http upstream behind a proxy: the request goes to the proxy with the absolute URL as its target.
    const proxy = (agent as OriginAgent['agent'] | undefined)?.[FORWARD_PROXY];
    this.#proxy = proxy;
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)({
      protocol: target.protocol,
      hostname: target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname,
      port: target.port,
      path: proxy === undefined ? target.pathname + target.search : target.origin + target.pathname + target.search,
      auth: target.username === '' && target.password === '' ? undefined : `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`,
      method: options.method,
      headers: options.headers,
      agent,
      [FHIRGATE_REQUEST]: true,
    } as RequestOptions);
    if (options.headers['user-agent'] === undefined) req.setHeader('user-agent', USER_AGENT);
    // W3C Trace Context: each try is a new span of the work that made it (trace-scope.ts), with a tracer
    // its client span, unless a tracing wrapper of http.request (OpenTelemetry's instrumentation) already
    // put its own span's there: that span is then the try's one client span.
    if (req.getHeader('traceparent') === undefined) {
      const parent = currentTrace();
      let trace: TraceContext;
      if (parent?.tracer !== undefined) {
        trace = startClientSpan(parent.tracer, parent, options.method, target, this.#listener.resends);
        this.#span = trace.span;
      } else trace = parent === undefined ? startTrace() : childSpan(parent);
      req.setHeader('traceparent', formatTraceparent(trace));
      if (trace.state !== undefined) req.setHeader('tracestate', trace.state);
    }
    if (options.body !== undefined) req.setHeader('content-length', Buffer.byteLength(options.body));
    if (proxy?.authorization !== undefined) req.setHeader('proxy-authorization', proxy.authorization);
    this.#req = req;
    this.#timer = this.#deadline.arm(this);
    req.on('error', (cause: Error) => this.#requestError(cause));
    req.on('response', (res: IncomingMessage) => this.#response(res));
    req.end(options.body);
  }

  /** The caller aborted, or the time is up. */
  handleEvent(): void {
    this.#fail(this.#deadline.error(describe(this.#options, this.#target)));
  }

  #requestError(cause: Error): void {
    const what = describe(this.#options, this.#target);
    // The proxy's and TLS's own failures keep their codes: a refused tunnel or an untrusted certificate is no network fault to retry.
    if (cause instanceof FhirgateError) return this.#fail(new FhirgateError(cause.code, `${what} failed: ${cause.message}`, { cause }));
    const tls = tlsFailure(cause);
    if (tls !== undefined) return this.#fail(new FhirgateError('ERR_TLS', `${what} failed: ${tls}`, { cause }));
    const err = new FhirgateError('ERR_NETWORK', `${what} failed: ${errorCode(cause)}`, { cause });
    const kind = this.#responded ? undefined : beforeAnswer(cause);
    if (kind !== undefined) failures.set(err, kind === 'reset' && this.#req?.reusedSocket === true ? 'stale' : kind);
    this.#fail(err);
  }

  #response(res: IncomingMessage): void {
    this.#responded = true;
    const status = res.statusCode ?? 0;
    if (status === 407 && this.#proxy !== undefined) {
      this.#fail(new FhirgateError('ERR_PROXY_AUTH', `${describe(this.#options, this.#target)} failed: ${proxyAuthFailure(this.#proxy, status)}`));
      return;
    }
    if (this.#options.stream === true && status >= 200 && status <= 299) {
      this.#settle(undefined, new BufferedResponse(res, EMPTY, true));
      return;
    }
    if (declaredLength(res.rawHeaders) > this.#options.maxResponseBytes) {
      this.#fail(this.#tooLarge());
      return;
    }
    res.on('data', (chunk: Buffer) => this.#data(chunk));
    // A connection lost in the middle of the body destroys the message with an `aborted` error, which
    // Node emits because a listener is there: no `close` listener is needed to see it.
    res.on('error', (cause: Error) => this.#cutShort(cause));
    res.on('end', () => this.#settle(undefined, new BufferedResponse(res, this.#body())));
  }

  #data(chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.#options.maxResponseBytes) this.#fail(this.#tooLarge());
    else if (this.#first === undefined) this.#first = chunk;
    else (this.#chunks ??= [this.#first]).push(chunk);
  }

  /** The body: the one chunk as it came, or the chunks joined once. */
  #body(): Buffer {
    if (this.#chunks !== undefined) return Buffer.concat(this.#chunks, this.#size);
    return this.#first ?? EMPTY;
  }

  #tooLarge(): FhirgateError {
    return new FhirgateError('ERR_RESPONSE_TOO_LARGE', `${describe(this.#options, this.#target)}: the answer is larger than ${this.#options.maxResponseBytes} bytes`);
  }

  #cutShort(cause: unknown): void {
    const what = describe(this.#options, this.#target);
    this.#fail(new FhirgateError('ERR_NETWORK', `${what} failed: the connection closed in the middle of the answer`, { cause }));
  }

  #fail(err: FhirgateError): void {
    this.#settle(err, undefined);
  }

  #settle(err: FhirgateError | undefined, res: HTTPResponse | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadline.disarm(this.#timer, this);
    if (requestEndChannel.hasSubscribers) {
      const { method, label } = this.#options;
      const durationMs = performance.now() - this.#started;
      requestEndChannel.publish({ method, origin: this.#target.origin, path: this.#target.pathname, status: res?.status, error: err?.code, durationMs, source: label?.source, interaction: label?.interaction });
    }
    if (this.#span !== undefined) endClientSpan(this.#span, res?.status, err?.code);
    if (err !== undefined) this.#req?.destroy();
    this.#listener.tryDone(err, res);
  }
}

const EMPTY = Buffer.alloc(0);

/** `GET https://host/path`, for messages (no query string: search values may be patient data). */
function describe(options: CheckedRequestOptions, target: HTTPTarget): string {
  return `${options.method} ${target.origin}${target.pathname}`;
}

/** `refused` or `reset` for the socket failures that a retry may cure; `undefined` for the others. */
function beforeAnswer(cause: unknown): 'refused' | 'reset' | undefined {
  const code = (cause as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return 'refused';
  return code === 'ECONNRESET' || code === 'EPIPE' ? 'reset' : undefined;
}

function errorCode(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'connection failed';
}
