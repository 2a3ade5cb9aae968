/**
 * The options of `createServiceAPI`, validated and copied once.
 * @module
 */
import { checkOpenAPIExamples, type OpenAPIExamples } from './openapi-examples.js';
import type { EventDispatcher } from '../events/types.js';
import type { Logger } from '../mount/index.js';
import { checkAPIKeys } from './api-keys.js';
import { CORSPolicy } from './cors.js';
import type { CORSOptions } from './cors.js';
import { createLogger } from './logger.js';
import { booleanOption, keysOf, numberOption, onlyKnownKeys, stringOption } from '../lib/options.js';
import { checkPublicUrl } from '../lib/public-url.js';
import { tracerOption, type TracerLike } from '../lib/tracer.js';
import { checkAllowedHosts } from './public-origin.js';

/** The contract's logger, the type of the `logger` option (`serveCluster` takes the same). */
export type { Logger };

/** Options of `createServiceAPI`. */
export interface ServiceAPIOptions {
  /** The API's name in `GET /`, `/openapi.json` and `/docs`. Default `'fhirgate'`. */
  title?: string;
  /** A sentence about the API. Default `''`. */
  description?: string;
  /**
   * The API's own version (not fhirgate's): `version` in `GET /` and `info.version` of the OpenAPI
   * document. `GET /` also says `fhirgate_version`, and `/docs` labels both. Default `'1.0.0'`.
   */
  version?: string;
  /** Hand the dispatcher to every registered component. Default true; false means nothing is emitted. */
  enableEvents?: boolean;
  /** Where components emit. Default the process-wide `localHandler`. */
  dispatcher?: EventDispatcher;
  /**
   * Keys callers must present (`Authorization: Bearer <key>` or `X-API-Key: <key>`). Default none: an
   * absent or empty list turns the check off. (The library reads no environment variable; `fhirgate
   * serve` takes `FHIRGATE_API_KEYS` when its config file sets no `apiKeys`.)
   */
  apiKeys?: readonly string[];
  /** Paths answered without an API key (exact, trailing slash ignored). Default `/health`, `/health/ready`, `/docs`, `/openapi.json`. */
  publicPaths?: readonly string[];
  /** CORS policy. Default off. */
  cors?: CORSOptions;
  /** Largest request body, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Where the structured log lines go. Default {@link createLogger}: JSON lines on stdout/stderr (readable lines on a terminal), level `info`. */
  logger?: Logger;
  /** Time `close()` lets in-flight requests finish before it aborts them, in ms. Default 10 000. */
  shutdownGraceMs?: number;
  /**
   * Time `close()` keeps serving with `/health/ready` answering 503 before it stops accepting
   * connections, in ms, so that a load balancer's readiness checks notice first. Default 0.
   */
  readinessDrainMs?: number;
  /** `server.headersTimeout` of servers made by `listen()`, in ms. Default 15 000. */
  headersTimeoutMs?: number;
  /** `server.requestTimeout` of servers made by `listen()`, in ms. Default 60 000. */
  requestTimeoutMs?: number;
  /**
   * Honour `Host`, `X-Forwarded-Proto` and `X-Forwarded-Host` when building the URLs the host hands out
   * (a WSDL's address, `/fhir/metadata`, the `aud` a CDS client JWT must name), for hosts listed in
   * `allowedHosts` only. Default false: those headers are never used.
   */
  trustProxy?: boolean;
  /** With `trustProxy`, the `Host`/`X-Forwarded-Host` values (`api.example.org` or `api.example.org:8443`) that may be used. Default none. */
  allowedHosts?: readonly string[];
  /**
   * The URL callers reach the host at (`https://api.example.org`, or with a path behind a proxy). When
   * set, it is used in every URL the host hands out. Default: from `allowedHosts` behind a trusted
   * proxy, else the address the connection came in on.
   */
  publicUrl?: string;
  /**
   * `Cache-Control: max-age` of `GET /.well-known/jwks.json`, in seconds. Default 300. Stage a next key
   * at least this long before rotating to it, so that servers caching the set have seen it.
   */
  jwksMaxAgeSeconds?: number;
  /**
   * Serve `GET /metrics` (Prometheus text format 0.0.4). Behind the API key when keys are set (add
   * `/metrics` to `publicPaths` to open it). Default false.
   */
  metrics?: boolean;
  /**
   * Examples for `/openapi.json` and `/docs`, keyed `'<METHOD> /path'` as the document shows the path:
   * parameter values, a request body, a response body. `/docs` fills its forms with them. An example
   * that matches nothing is logged as a warning at `listen()`.
   */
  openapiExamples?: OpenAPIExamples;
  /**
   * An OpenTelemetry `Tracer` (`trace.getTracer('fhirgate')` of the user's own `@opentelemetry/api`, with
   * an SDK registered): each request becomes a server span (OpenTelemetry's HTTP semantic conventions),
   * the parent of the spans of the calls it makes. Default none: requests still continue or start a W3C
   * trace (`traceparent`, `X-Trace-ID`, `trace_id` in log lines), without spans.
   */
  tracer?: TracerLike;
}

/** The options after validation, defaults filled in. */
export interface ResolvedOptions {
  readonly title: string;
  readonly description: string;
  readonly version: string;
  readonly enableEvents: boolean;
  readonly dispatcher: EventDispatcher | undefined;
  readonly apiKeys: readonly string[];
  readonly publicPaths: readonly string[];
  readonly cors: CORSPolicy | undefined;
  readonly bodyLimit: number;
  readonly logger: Logger;
  readonly shutdownGraceMs: number;
  readonly readinessDrainMs: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly trustProxy: boolean;
  readonly allowedHosts: ReadonlySet<string>;
  readonly publicUrl: string | undefined;
  readonly jwksMaxAgeSeconds: number;
  readonly metrics: boolean;
  readonly openapiExamples: OpenAPIExamples;
  readonly tracer: TracerLike | undefined;
}

/** The keys of {@link ServiceAPIOptions}; any other is refused with the nearest of these. */
export const SERVICE_API_OPTION_KEYS = keysOf<ServiceAPIOptions>({
  title: true, description: true, version: true, enableEvents: true, dispatcher: true, apiKeys: true, publicPaths: true, cors: true, bodyLimit: true, logger: true,
  shutdownGraceMs: true, readinessDrainMs: true, headersTimeoutMs: true, requestTimeoutMs: true, trustProxy: true, allowedHosts: true, publicUrl: true, jwksMaxAgeSeconds: true,
  metrics: true, openapiExamples: true, tracer: true,
});

const DEFAULTS = Object.freeze({
  title: 'fhirgate',
  description: '',
  version: '1.0.0',
  enableEvents: true,
  publicPaths: Object.freeze(['/health', '/health/ready', '/docs', '/openapi.json']),
  bodyLimit: 1024 * 1024,
  shutdownGraceMs: 10_000,
  readinessDrainMs: 0,
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 60_000,
  trustProxy: false,
  jwksMaxAgeSeconds: 300,
  metrics: false,
});

/** Whether `value` has the four methods of a {@link Logger}. */
export function isLogger(value: unknown): value is Logger {
  const l = value as Partial<Logger> | null;
  return typeof l === 'object' && l !== null && ['debug', 'info', 'warn', 'error'].every((m) => typeof l[m as keyof Logger] === 'function');
}

function isDispatcher(value: unknown): value is EventDispatcher {
  const d = value as Partial<EventDispatcher> | null;
  return typeof d === 'object' && d !== null && typeof d.emit === 'function' && typeof d.register === 'function' && typeof d.drain === 'function';
}

/**
 * Validates and copies `createServiceAPI` options. Throws `TypeError`/`RangeError` naming the option.
 * `dispatcher` stays `undefined` when not given: the app fills in the process-wide default.
 */
export function resolveOptions(options: ServiceAPIOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('createServiceAPI options must be an object');
  onlyKnownKeys(options, SERVICE_API_OPTION_KEYS, 'options');
  if (options.logger !== undefined && !isLogger(options.logger)) throw new TypeError('options.logger must have debug, info, warn and error methods');
  if (options.dispatcher !== undefined && !isDispatcher(options.dispatcher)) throw new TypeError('options.dispatcher must implement emit, register and drain');
  const publicPaths = options.publicPaths ?? DEFAULTS.publicPaths;
  if (!Array.isArray(publicPaths) || publicPaths.some((p) => typeof p !== 'string' || !p.startsWith('/'))) {
    throw new TypeError('options.publicPaths must be an array of paths starting with "/"');
  }
  const headersTimeoutMs = numberOption(options.headersTimeoutMs, 'options.headersTimeoutMs', DEFAULTS.headersTimeoutMs, { integer: true, min: 1 });
  const requestTimeoutMs = numberOption(options.requestTimeoutMs, 'options.requestTimeoutMs', DEFAULTS.requestTimeoutMs, { integer: true, min: 1 });
  if (headersTimeoutMs > requestTimeoutMs) throw new RangeError('options.headersTimeoutMs must be <= options.requestTimeoutMs');
  return Object.freeze({
    title: stringOption(options.title, 'options.title', DEFAULTS.title),
    description: stringOption(options.description, 'options.description', DEFAULTS.description),
    version: stringOption(options.version, 'options.version', DEFAULTS.version),
    enableEvents: booleanOption(options.enableEvents, 'options.enableEvents', DEFAULTS.enableEvents),
    dispatcher: options.dispatcher,
    apiKeys: Object.freeze(checkAPIKeys(options.apiKeys)),
    publicPaths: Object.freeze([...publicPaths]),
    cors: options.cors === undefined ? undefined : new CORSPolicy(options.cors),
    bodyLimit: numberOption(options.bodyLimit, 'options.bodyLimit', DEFAULTS.bodyLimit, { integer: true, min: 1 }),
    logger: options.logger ?? createLogger(),
    shutdownGraceMs: numberOption(options.shutdownGraceMs, 'options.shutdownGraceMs', DEFAULTS.shutdownGraceMs, { integer: true, min: 0 }),
    headersTimeoutMs,
    requestTimeoutMs,
    trustProxy: booleanOption(options.trustProxy, 'options.trustProxy', DEFAULTS.trustProxy),
    allowedHosts: checkAllowedHosts(options.allowedHosts),
    publicUrl: checkPublicUrl(options.publicUrl, 'options.publicUrl'),
    jwksMaxAgeSeconds: numberOption(options.jwksMaxAgeSeconds, 'options.jwksMaxAgeSeconds', DEFAULTS.jwksMaxAgeSeconds, { integer: true, min: 0 }),
    readinessDrainMs: numberOption(options.readinessDrainMs, 'options.readinessDrainMs', DEFAULTS.readinessDrainMs, { integer: true, min: 0 }),
    metrics: booleanOption(options.metrics, 'options.metrics', DEFAULTS.metrics),
    openapiExamples: checkOpenAPIExamples(options.openapiExamples),
    tracer: tracerOption(options.tracer, 'options.tracer'),
  });
}
