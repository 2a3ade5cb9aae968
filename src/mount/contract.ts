/**
 * The one small contract between the application host and what it mounts (gateways, CDS Hooks,
 * NoteReader). The host never reaches into a component's private parts; a component knows nothing
 * about HTTP servers: it hands the host plain route descriptions and answers plain replies.
 *
 * A mountable component has a method under {@link MOUNT} that returns its {@link Mountable} face,
 * and answers its own errors in its own format ({@link Mountable.errorReply}).
 * @module
 */
import type { TraceContext } from '../lib/trace-context.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorCode } from '../errors.js';
import type { EventDispatcher } from '../events/types.js';

/** The key under which a component offers its {@link Mountable} face. Shared across module copies. */
export const MOUNT: unique symbol = Symbol.for('fhirgate.mount') as never;

/** HTTP methods a route may answer. HEAD is answered by the host for every GET route. */
export type HTTPMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A structured logger: one JSON object a line. `fields` never hold secrets or resource bodies. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What a route handler is given about the request. Built by the host. */
export interface RouteRequest {
  /** The request method, upper case (`HEAD` arrives as `GET`). */
  readonly method: string;
  /** The decoded path parameters (`:id` → `params.id`), in a null-prototype object. */
  readonly params: Readonly<Record<string, string>>;
  /** The query string; repeated keys are kept (`query.getAll('sources')`). */
  readonly query: URLSearchParams;
  /** The request headers, names in lower case. */
  readonly headers: IncomingHttpHeaders;
  /**
   * The absolute URL of the request as the host is reached: under the host's `publicUrl` when set; else
   * from `Host`/`X-Forwarded-*` only behind a trusted proxy and for an allowed host; else the address
   * the connection came in on. Never from a caller's `Host` header alone.
   */
  readonly url: URL;
  /** The absolute URL of the component's mount point, without a trailing slash (`http://h:8000/cds`). */
  readonly baseUrl: string;
  /** The request id, echoed in `X-Request-ID`; put it in every log line about this request. */
  readonly requestId: string;
  /**
   * The request's position in its W3C trace: the caller's `traceparent` continued (a new span of its
   * trace), or a new trace. Its `traceId` is echoed in `X-Trace-ID` and bound to {@link log}; the
   * gateway's outgoing calls made while the request runs carry it without being passed it.
   */
  readonly trace?: TraceContext;
  /** The network address the connection came from (the peer, not `X-Forwarded-For`), for audit records. */
  readonly remoteAddress?: string | undefined;
  /** Aborted when the client goes away or the host shuts down past its grace period. */
  readonly signal: AbortSignal;
  /**
   * Aborted when the connection closes: the client went away, or the host cut the connection (at a
   * shutdown past its grace period). One signal for every request on a keep-alive connection, made once
   * per connection: a listener must be removed once its request is done (as the gateway's calls do).
   * What a component that cancels its upstream calls on every request uses instead of {@link signal}:
   * on Node 20 an `AbortSignal` made per request survives the young-generation collections (the
   * facade read's garbage collection doubled, and its CPU per read with it).
   */
  readonly connectionSignal: AbortSignal;
  /** The host's logger, with the request id bound. */
  readonly log: Logger;
  /**
   * Reads the whole body. Rejects with `ERR_BODY_TOO_LARGE` (status 413) past `limit` bytes (default:
   * the host's `bodyLimit`). Call it at most once, and not together with {@link chunks}.
   */
  bytes(limit?: number): Promise<Buffer>;
  /** The body chunk by chunk, for streaming parsers; same limit and error as {@link bytes}. */
  chunks(limit?: number): AsyncIterable<Buffer>;
}

/** A reply. `body` is sent as is; set `content-type` in `headers`. */
export interface RouteReply {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** One route of a component. */
export interface Route {
  method: HTTPMethod;
  /**
   * The path under the component's prefix: `''` is the prefix itself, `/cds-services/:id` a path with
   * a parameter. Routes are read once, at registration: look handlers up at request time so that
   * handlers added later are served too.
   */
  path: string;
  handle(req: RouteRequest): RouteReply | Promise<RouteReply>;
  /** True when API keys must not be asked for (a WSDL, a discovery document). Default false. */
  public?: boolean;
}

/** An OpenAPI 3.1 parameter object (the parts fhirgate uses). */
export interface OpenAPIParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: Record<string, unknown>;
  style?: string;
  explode?: boolean;
  /** A value that works: `/docs` fills the parameter's field with it. */
  example?: unknown;
}

/** An OpenAPI 3.1 operation object (the parts fhirgate uses). */
export interface OpenAPIOperation {
  summary?: string;
  description?: string;
  operationId?: string;
  tags?: string[];
  parameters?: OpenAPIParameter[];
  requestBody?: {
    required?: boolean;
    description?: string;
    content: Record<string, { schema?: Record<string, unknown>; example?: unknown }>;
  };
  responses: Record<string, OpenAPIResponse>;
}

/** An OpenAPI 3.1 response object (the parts fhirgate uses): its headers are shown by `/docs`. */
export interface OpenAPIResponse {
  description: string;
  headers?: Record<string, { description?: string; schema?: Record<string, unknown> }>;
  content?: Record<string, { schema?: Record<string, unknown>; example?: unknown }>;
}

/** OpenAPI path items keyed by path relative to the component's prefix, `{param}` style. */
export type OpenAPIPaths = Record<string, Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', OpenAPIOperation>>>;

/**
 * The face a component shows the host.
 *
 * @example
 * ```ts
 * class Hello {
 *   [MOUNT](): Mountable {
 *     return {
 *       kind: 'service',
 *       defaultPath: '/hello',
 *       routes: () => [{ method: 'GET', path: '', handle: () => json(200, { hello: 'world' }) }],
 *       status: () => ({ status: 'active' }),
 *       openapi: () => ({ '': { get: { summary: 'Say hello', responses: { 200: { description: 'hello' } } } } }),
 *       useEvents: () => {},
 *       close: async () => {},
 *     };
 *   }
 * }
 * ```
 */
export interface Mountable {
  readonly kind: 'gateway' | 'service';
  /** Where the component mounts when the caller gives no path (`/fhir`, `/cds`, `/notereader`). */
  readonly defaultPath: string;
  /** The component's routes. */
  routes(): readonly Route[];
  /** The component's entry in `/gateway/status`: at least `{ status: 'active' }`. Never a secret. */
  status(): Record<string, unknown>;
  /** The component's part of `/openapi.json`, paths relative to its prefix. Called per request. */
  openapi(): OpenAPIPaths;
  /** The host's dispatcher when events are on, `null` when they are off. */
  useEvents(dispatcher: EventDispatcher | null): void;
  /**
   * Optional: the public JWKs the component signs with (a gateway's JWT-assertion keys). The host
   * serves them, from every component, at `GET /.well-known/jwks.json`. Called per request; never a
   * private member.
   */
  jwks?(): readonly Record<string, unknown>[];
  /** Releases the component's resources (sockets, workers). Idempotent. */
  close(): Promise<void>;
  /**
   * The reply for an error under the component's prefix (a route that threw, a path or method that
   * no route answers, a malformed path, a body too large, a missing API key), in the format the
   * component's clients read: a gateway answers an OperationOutcome. `error` is already safe to send;
   * `request` says what was refused (for a component that records every access). Without it the host
   * answers `{ "error": { "code", "message" } }`. Of several components mounted at the same prefix, the
   * one registered last answers the errors no route of theirs took.
   */
  errorReply?(error: PublicError, request?: RefusedRequest): RouteReply;
}

/**
 * What the host tells a component's {@link Mountable.errorReply} of the request it refused: enough to
 * record the access, nothing to answer it with (the body may be unread, the path undecodable).
 *
 * @example
 * ```ts
 * const r: RefusedRequest = { method: 'OPTIONS', path: '/ehr/Patient', headers: {}, requestId: 'r1', remoteAddress: '127.0.0.1', baseUrl: 'http://h:8000/fhir' };
 * ```
 */
export interface RefusedRequest {
  /** The request method, upper case, as sent (`OPTIONS`, `HEAD` too). */
  readonly method: string;
  /** The path under the component's prefix as sent: still percent-encoded, without the query. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly requestId: string;
  /** The request's W3C trace context, as {@link RouteRequest.trace}. */
  readonly trace?: TraceContext;
  readonly remoteAddress: string | undefined;
  /** The absolute URL of the component's mount point, as {@link RouteRequest.baseUrl}. */
  readonly baseUrl: string;
}

/**
 * An error as it may be sent to a client: the HTTP status (from the one table in `errors.ts`), the
 * stable code, and a message that holds no internals (a 5xx message is generic and names the request id).
 *
 * @example
 * ```ts
 * const e: PublicError = { status: 404, code: 'ERR_NOT_FOUND', message: 'no route for GET /fhir/x' };
 * ```
 */
export interface PublicError {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
}

/** Anything that offers a {@link Mountable} face under {@link MOUNT}. */
export interface MountableComponent {
  [MOUNT](): Mountable;
}
