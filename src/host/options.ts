/**
 * The options of `createServiceAPI`, validated and copied once.
 * @module
 */
import { checkOpenApiExamples, type OpenApiExamples } from './openapi-examples.js';
import type { EventDispatcher } from '../events/types.js';
import type { Logger } from '../mount.js';
import { resolveApiKeys } from './api-keys.js';
import { CorsPolicy } from './cors.js';
import type { CorsOptions } from './cors.js';
import { createJsonLogger } from './logger.js';
import { checkPublicUrl } from '../lib/public-url.js';
import { checkAllowedHosts } from './public-origin.js';

/** Options of `createServiceAPI`. */
export interface ServiceAPIOptions {
  /** The API's name in `GET /`, `/openapi.json` and `/docs`. Default `'fhirgate'`. */
  title?: string;
  /** A sentence about the API. Default `''`. */
  description?: string;
  /** The API's own version (not fhirgate's). Default `'1.0.0'`. */
  version?: string;
  /** Hand the dispatcher to every registered component. Default true; false means nothing is emitted. */
  enableEvents?: boolean;
  /** Where components emit. Default the process-wide `localHandler`. */
  dispatcher?: EventDispatcher;
  /**
   * Keys callers must present (`Authorization: Bearer <key>` or `X-API-Key: <key>`). When `undefined`,
   * read from `FHIRGATE_API_KEYS` (comma-separated); an empty list turns the check off.
   */
  apiKeys?: readonly string[];
  /** Paths answered without an API key (exact, trailing slash ignored). Default `/health`, `/health/ready`, `/docs`, `/openapi.json`. */
  publicPaths?: readonly string[];
  /** CORS policy. Default off. */
  cors?: CorsOptions;
  /** Largest request body, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Where the structured log lines go. Default one JSON line each on stdout/stderr, level `info`. */
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
  openapiExamples?: OpenApiExamples;
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
  readonly cors: CorsPolicy | undefined;
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
  readonly openapiExamples: OpenApiExamples;
}

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

function text(value: unknown, name: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw new TypeError(`option "${name}" must be a string`);
  return value;
}

function flag(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new TypeError(`option "${name}" must be a boolean`);
  return value;
}

/**
 * An integer option of at least `min`, or `fallback` when absent. Throws `TypeError`/`RangeError` naming it.
 *
 * @example
 * ```ts
 * count(options.readinessDrainMs, 'readinessDrainMs', 0, 0);
 * ```
 */
export function count(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`option "${name}" must be a number`);
  if (!Number.isInteger(value) || value < min) throw new RangeError(`option "${name}" must be an integer >= ${min}`);
  return value;
}

/**
 * Whether `value` has the four methods of a {@link Logger}.
 *
 * @example
 * ```ts
 * isLogger(console); // true
 * ```
 */
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
 *
 * @example
 * ```ts
 * resolveOptions({ bodyLimit: 4096 }).bodyLimit; // 4096
 * resolveOptions({ bodyLimit: -1 });             // RangeError: option "bodyLimit" must be an integer >= 1
 * ```
 */
export function resolveOptions(options: ServiceAPIOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('createServiceAPI options must be an object');
  if (options.logger !== undefined && !isLogger(options.logger)) throw new TypeError('option "logger" must have debug, info, warn and error methods');
  if (options.dispatcher !== undefined && !isDispatcher(options.dispatcher)) throw new TypeError('option "dispatcher" must implement emit, register and drain');
  const publicPaths = options.publicPaths ?? DEFAULTS.publicPaths;
  if (!Array.isArray(publicPaths) || publicPaths.some((p) => typeof p !== 'string' || !p.startsWith('/'))) {
    throw new TypeError('option "publicPaths" must be an array of paths starting with "/"');
  }
  const headersTimeoutMs = count(options.headersTimeoutMs, 'headersTimeoutMs', DEFAULTS.headersTimeoutMs, 1);
  const requestTimeoutMs = count(options.requestTimeoutMs, 'requestTimeoutMs', DEFAULTS.requestTimeoutMs, 1);
  if (headersTimeoutMs > requestTimeoutMs) throw new RangeError('option "headersTimeoutMs" must not exceed "requestTimeoutMs"');
  return Object.freeze({
    title: text(options.title, 'title', DEFAULTS.title),
    description: text(options.description, 'description', DEFAULTS.description),
    version: text(options.version, 'version', DEFAULTS.version),
    enableEvents: flag(options.enableEvents, 'enableEvents', DEFAULTS.enableEvents),
    dispatcher: options.dispatcher,
    apiKeys: Object.freeze(resolveApiKeys(options.apiKeys, env)),
    publicPaths: Object.freeze([...publicPaths]),
    cors: options.cors === undefined ? undefined : new CorsPolicy(options.cors),
    bodyLimit: count(options.bodyLimit, 'bodyLimit', DEFAULTS.bodyLimit, 1),
    logger: options.logger ?? createJsonLogger(),
    shutdownGraceMs: count(options.shutdownGraceMs, 'shutdownGraceMs', DEFAULTS.shutdownGraceMs, 0),
    jwksMaxAgeSeconds: count(options.jwksMaxAgeSeconds, 'jwksMaxAgeSeconds', DEFAULTS.jwksMaxAgeSeconds, 0),
    readinessDrainMs: count(options.readinessDrainMs, 'readinessDrainMs', DEFAULTS.readinessDrainMs, 0),
    headersTimeoutMs,
    requestTimeoutMs,
    trustProxy: flag(options.trustProxy, 'trustProxy', DEFAULTS.trustProxy),
    allowedHosts: checkAllowedHosts(options.allowedHosts),
    publicUrl: checkPublicUrl(options.publicUrl, 'publicUrl'),
    metrics: flag(options.metrics, 'metrics', DEFAULTS.metrics),
    openapiExamples: checkOpenApiExamples(options.openapiExamples),
  });
}
