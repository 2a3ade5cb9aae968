/**
 * `createServiceAPI()`: the application host on `node:http`. It mounts gateways and services through
 * their {@link Mountable} face, serves the default endpoints, custom routes with injected dependencies,
 * API keys, CORS, and shuts down gracefully.
 * @module
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FhirgateError } from '../errors.js';
import { localHandler } from '../events/local-handler.js';
import { withTurnBudget } from './turn-budget.js';
import type { EventDispatcher } from '../events/types.js';
import { MOUNT } from '../mount/index.js';
import type { HTTPMethod, Mountable, MountableComponent, Route } from '../mount/index.js';
import { APIKeyCheck } from './api-keys.js';
import { customEndpoint } from './custom-route.js';
import type { CustomEndpoint, CustomHandler, CustomRouteOptions } from './custom-route.js';
import { defaultEndpoints } from './default-routes.js';
import type { Deps, InjectMap } from './inject.js';
import { jwksEndpoint } from './jwks-route.js';
import { HostMetrics, metricsEndpoint, type MetricsView } from './metrics.js';
import type { MetricFamily } from './prometheus.js';
import { joinPath, normalizePrefix, samePattern } from './mount-path.js';
import { buildOpenAPI, toOpenAPIPath } from './openapi.js';
import type { DocumentedOperation } from './openapi.js';
import { applyOpenAPIExamples, warnUnmatchedExamples } from './openapi-examples.js';
import { resolveOptions } from './options.js';
import { keysOf, numberOption, onlyKnownKeys } from '../lib/options.js';
import type { ResolvedOptions, ServiceAPIOptions } from './options.js';
import { createPipeline } from './pipeline.js';
import type { Endpoint } from './pipeline.js';
import { TrieRouter } from './router.js';
import { VERSION } from '../version.js';
import { InFlight, stopServers, trackSockets } from './shutdown.js';
import type { Served } from './shutdown.js';

/** Options of `registerGateway` and `registerService`. */
export interface MountOptions {
  /** The prefix the component's routes move under. Default the component's own (`/fhir`, `/cds`, `/notereader`). */
  path?: string;
  /** The key in `app.gateways`/`app.services`. Default the class name; give one to mount a second component of a class. */
  name?: string;
}

/** The keys of {@link MountOptions}, and of `createServer`'s and `close`'s options; any other is refused with the nearest of these. */
export const APP_OPTION_KEYS = Object.freeze({
  mount: keysOf<MountOptions>({ path: true, name: true }),
  createServer: keysOf<Parameters<ServiceAPI['createServer']>[0]>({ stopAccepting: true }),
  close: keysOf<Parameters<ServiceAPI['close']>[0]>({ readinessDrainMs: true }),
});

/** How `registerGateway` and `registerService` differ: the kind they accept, their name, their table. */
interface MountKind {
  readonly kind: Mountable['kind'];
  readonly register: 'registerGateway' | 'registerService';
  readonly registry: Map<string, MountableComponent>;
}

interface Mounted {
  readonly name: string;
  readonly prefix: string;
  readonly mountable: Mountable;
  readonly routes: readonly Route[];
}

const safely = <T>(log: ResolvedOptions['logger'], what: string, read: () => T, fallback: T): T => {
  try {
    return read();
  } catch (error) {
    log.error(`${what} failed`, { error: (error as Error)?.message });
    return fallback;
  }
};

/**
 * The application. Make one with {@link createServiceAPI}.
 *
 * @example
 * ```ts
 * const app = createServiceAPI({ title: 'My gateway' });
 * app.registerGateway(gw);
 * app.get('/hello', () => ({ hello: 'world' }));
 * const server = await app.listen(8000);
 * ```
 */
export class ServiceAPI {
  /** Mounted gateways by name (class name unless a `name` was given). */
  readonly gateways: ReadonlyMap<string, MountableComponent>;
  /** Mounted services by name. */
  readonly services: ReadonlyMap<string, MountableComponent>;
  /** Whether components get the dispatcher. */
  readonly enableEvents: boolean;
  /** Where components emit when events are on. */
  readonly dispatcher: EventDispatcher;
  /** The `(req, res)` listener; mount it on any `node:http` server. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;

  readonly #options: ResolvedOptions;
  readonly #gateways = new Map<string, MountableComponent>();
  readonly #services = new Map<string, MountableComponent>();
  readonly #mounted: Mounted[] = [];
  readonly #endpoints: Endpoint[] = [];
  readonly #servers = new Set<Served>();
  readonly #inFlight = new InFlight();
  readonly #metrics: HostMetrics | undefined;
  #metricsSource: (() => Promise<readonly MetricFamily[]>) | undefined;
  #router = new TrieRouter<Endpoint>();
  #closed: Promise<void> | undefined;
  #ready = false;

  constructor(options: ServiceAPIOptions = {}) {
    const resolved = (this.#options = resolveOptions(options));
    this.gateways = this.#gateways;
    this.services = this.#services;
    this.enableEvents = resolved.enableEvents;
    this.dispatcher = resolved.dispatcher ?? localHandler;
    const view = {
      info: () => ({ name: resolved.title, version: resolved.version, fhirgate_version: VERSION, description: resolved.description, gateways: [...this.#gateways.keys()], services: [...this.#services.keys()] }),
      serving: () => this.#closed === undefined,
      readiness: () => (this.#closed !== undefined ? 'draining' : this.#ready ? 'ready' : 'starting'),
      status: () => this.#status(),
      openapi: () => this.#openapi().doc,
    };
    this.#addEndpoints(defaultEndpoints(view, resolved.publicPaths));
    this.#addEndpoints([jwksEndpoint(() => this.#mounted, { maxAgeSeconds: resolved.jwksMaxAgeSeconds, logger: resolved.logger })]);
    const metrics = (this.#metrics = resolved.metrics ? new HostMetrics(this.#metricsView()) : undefined);
    if (metrics !== undefined) this.#addEndpoints([metricsEndpoint(() => (this.#metricsSource ?? (() => metrics.collect()))(), resolved.publicPaths.includes('/metrics'))]);
    const apiKeys = new APIKeyCheck(resolved.apiKeys);
    this.handler = createPipeline({
      options: resolved,
      match: (method, path) => this.#router.match(method, path),
      apiKeys,
      inFlight: this.#inFlight,
      errorReplyAt: (rawPath) => this.#errorReplyAt(rawPath),
      closing: () => this.#closed !== undefined,
      ...(metrics === undefined ? {} : { observe: metrics.observe.bind(metrics) }),
    });
  }

  /**
   * Mounts a gateway (default prefix `/fhir`). Throws `ERR_DUPLICATE_NAME` for a second one of a name,
   * `ERR_DUPLICATE_ROUTE` when one of its routes is already taken.
   */
  registerGateway(gateway: MountableComponent, options: MountOptions = {}): this {
    return this.#mount({ kind: 'gateway', register: 'registerGateway', registry: this.#gateways }, gateway, options);
  }

  /** Mounts a service (CDS Hooks at `/cds`, NoteReader at `/notereader` by default). */
  registerService(service: MountableComponent, options: MountOptions = {}): this {
    return this.#mount({ kind: 'service', register: 'registerService', registry: this.#services }, service, options);
  }

  /** Adds a custom route; `:name` segments become `ctx.params.name`. Throws `ERR_DUPLICATE_ROUTE` when the method and path are taken. */
  route(method: HTTPMethod, path: string, handler: CustomHandler<Deps<Record<string, never>>>): this;
  route<I extends InjectMap>(method: HTTPMethod, path: string, options: CustomRouteOptions<I>, handler: CustomHandler<Deps<I>>): this;
  route(method: HTTPMethod, path: string, ...rest: [CustomHandler<Deps<InjectMap>>] | [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]): this {
    const [options, handler] = rest.length === 1 ? [{}, rest[0]] : rest;
    this.#open();
    this.#addEndpoints([customEndpoint(this, method, path, options, handler)]);
    return this;
  }

  /** `route('GET', ...)`; HEAD is answered too. */
  get(path: string, handler: CustomHandler<Deps<Record<string, never>>>): this;
  get<I extends InjectMap>(path: string, options: CustomRouteOptions<I>, handler: CustomHandler<Deps<I>>): this;
  get(path: string, ...rest: [CustomHandler<Deps<InjectMap>>] | [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]): this {
    return this.route('GET', path, ...(rest as [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]));
  }

  /** `route('POST', ...)`. */
  post(path: string, handler: CustomHandler<Deps<Record<string, never>>>): this;
  post<I extends InjectMap>(path: string, options: CustomRouteOptions<I>, handler: CustomHandler<Deps<I>>): this;
  post(path: string, ...rest: [CustomHandler<Deps<InjectMap>>] | [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]): this {
    return this.route('POST', path, ...(rest as [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]));
  }

  /** `route('PUT', ...)`. */
  put(path: string, handler: CustomHandler<Deps<Record<string, never>>>): this;
  put<I extends InjectMap>(path: string, options: CustomRouteOptions<I>, handler: CustomHandler<Deps<I>>): this;
  put(path: string, ...rest: [CustomHandler<Deps<InjectMap>>] | [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]): this {
    return this.route('PUT', path, ...(rest as [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]));
  }

  /** `route('DELETE', ...)`. */
  delete(path: string, handler: CustomHandler<Deps<Record<string, never>>>): this;
  delete<I extends InjectMap>(path: string, options: CustomRouteOptions<I>, handler: CustomHandler<Deps<I>>): this;
  delete(path: string, ...rest: [CustomHandler<Deps<InjectMap>>] | [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]): this {
    return this.route('DELETE', path, ...(rest as [CustomRouteOptions, CustomHandler<Deps<InjectMap>>]));
  }

  /**
   * Starts an HTTP server on `host:port` (port 0 picks a free one). Rejects with `ERR_UNKNOWN_DEPENDENCY` when a
   * custom route injects a gateway name that is not registered.
   */
  listen(port: number, host = '127.0.0.1'): Promise<Server> {
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError('listen "port" must be an integer from 0 to 65535');
    if (typeof host !== 'string' || host === '') throw new TypeError('listen "host" must be a non-empty string');
    let server: Server;
    try {
      server = this.#newServer();
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        // Closing the listener only: http's own close() would also close idle keep-alive connections at
        // once, racing with clients that send on them (see stopServers).
        this.#serve(server, async () => void NetServer.prototype.close.call(server));
        const address = server.address();
        this.#options.logger.info('listening', { host, port: typeof address === 'object' && address !== null ? address.port : port });
        this.markReady();
        resolve(server);
      });
    });
  }

  /**
   * An HTTP server with the app's handler and time-outs that does not listen: it serves the connections
   * handed to it with `server.emit('connection', socket)`. `fhirgate/cluster` workers serve this way the
   * connections their primary accepts. `close()` calls `stopAccepting` (whoever hands the connections
   * over stops), waits for it, then drains the server like a listening one. Marks the app ready.
   *
   * @example
   * ```ts
   * import { createServer as createTCPServer } from 'node:net';
   * const feeder = createTCPServer();
   * const server = app.createServer({ stopAccepting: async () => { feeder.close(); } });
   * feeder.on('connection', (socket) => server.emit('connection', socket));
   * ```
   */
  createServer(options: { stopAccepting?: () => Promise<void> } = {}): Server {
    if (typeof options !== 'object' || options === null) throw new TypeError('createServer options must be an object');
    onlyKnownKeys(options, APP_OPTION_KEYS.createServer, 'options');
    const stopAccepting = options.stopAccepting ?? (() => Promise.resolve());
    if (typeof stopAccepting !== 'function') throw new TypeError('options.stopAccepting must be a function');
    const server = this.#newServer();
    // Node starts tracking a server's connections (time-outs, idle closing) on its 'listening' event.
    server.emit('listening');
    this.#serve(server, stopAccepting);
    this.markReady();
    return server;
  }

  /** A server with the app's handler and time-outs; throws what `listen()` rejects with. */
  #newServer(): Server {
    this.#open();
    this.#checkInjections();
    warnUnmatchedExamples(this.#openapi().unmatched, this.#options.logger);
    const { headersTimeoutMs, requestTimeoutMs } = this.#options;
    // Node checks both time-outs every `connectionsCheckingInterval` (30 s by default): check often enough
    // that a slow client is cut near its time-out.
    const connectionsCheckingInterval = Math.min(30_000, Math.max(50, Math.floor(headersTimeoutMs / 2)));
    return createServer({ headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval }, withTurnBudget(this.handler));
  }

  #serve(server: Server, stopAccepting: () => Promise<void>): void {
    const served: Served = { server, sockets: trackSockets(server), stopAccepting };
    this.#servers.add(served);
    server.once('close', () => this.#servers.delete(served));
  }

  /**
   * This app's metric families, read now (what `GET /metrics` shows): the host's counters, histograms and
   * gauges and the process's. Empty when `metrics` is off.
   *
   * @example
   * ```ts
   * const requests = app.metricFamilies().find((f) => f.name === 'fhirgate_http_requests_total');
   * ```
   */
  metricFamilies(): MetricFamily[] {
    return this.#metrics?.collect() ?? [];
  }

  /**
   * Makes `GET /metrics` show what `collect` resolves to instead of this app's own families.
   * `fhirgate/cluster` uses it so that any worker answers a scrape with the whole cluster's figures.
   *
   * @example
   * ```ts
   * app.collectMetricsWith(async () => app.metricFamilies().filter((family) => family.name.startsWith('fhirgate_')));
   * ```
   */
  collectMetricsWith(collect: () => Promise<readonly MetricFamily[]>): void {
    if (typeof collect !== 'function') throw new TypeError('collectMetricsWith expects a function');
    this.#metricsSource = collect;
  }

  /**
   * Makes `/health/ready` answer 200. `listen()` does it once its server listens; call it yourself when
   * you serve `app.handler` on your own server. It has no effect once the app is closing.
   */
  markReady(): void {
    this.#ready = true;
  }

  /**
   * Answers `/health/ready` with 503 and keeps serving for `readinessDrainMs` (the option, or this call's
   * override: 0 for a rolling restart where no load balancer has to notice), then stops accepting
   * connections, lets in-flight requests finish (up to `shutdownGraceMs`, then aborts them), drains the
   * dispatcher's handlers, and closes every mounted component. Idempotent: later calls return the first
   * call's promise.
   */
  close(options: { readinessDrainMs?: number } = {}): Promise<void> {
    if (typeof options !== 'object' || options === null) throw new TypeError('close options must be an object');
    onlyKnownKeys(options, APP_OPTION_KEYS.close, 'options');
    const drainMs = numberOption(options.readinessDrainMs, 'options.readinessDrainMs', this.#options.readinessDrainMs, { integer: true, min: 0 });
    return (this.#closed ??= this.#shutdown(drainMs));
  }

  /** `await using app = createServiceAPI()` closes it. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #shutdown(readinessDrainMs: number): Promise<void> {
    const { logger, shutdownGraceMs } = this.#options;
    if (readinessDrainMs > 0) {
      logger.info('draining', { readiness_drain_ms: readinessDrainMs });
      await new Promise((resolve) => setTimeout(resolve, readinessDrainMs));
    }
    logger.info('shutting down', { in_flight: this.#inFlight.size });
    await stopServers([...this.#servers], this.#inFlight, shutdownGraceMs, new FhirgateError('ERR_CLOSED', 'the server is shutting down'));
    this.#metrics?.close();
    if (this.enableEvents) await this.dispatcher.drain().catch((error: unknown) => logger.error('event drain failed', { error: (error as Error)?.message }));
    const results = await Promise.allSettled(this.#mounted.map((m) => m.mountable.close()));
    results.forEach((result, i) => {
      if (result.status === 'rejected') logger.error('component close failed', { component: this.#mounted[i]!.name, error: (result.reason as Error)?.message });
    });
    logger.info('closed');
  }

  #open(): void {
    if (this.#closed !== undefined) throw new FhirgateError('ERR_CLOSED', 'the app is closed');
  }

  /** Rebuilds the router with `endpoints` added; on a conflict nothing changes. */
  #addEndpoints(endpoints: readonly Endpoint[]): void {
    const next = new TrieRouter<Endpoint>();
    for (const e of [...this.#endpoints, ...endpoints]) next.add(e.method, e.path, e);
    this.#router = next;
    this.#endpoints.push(...endpoints);
  }

  #mount({ kind, register, registry }: MountKind, component: MountableComponent, options: MountOptions): this {
    this.#open();
    if (typeof component !== 'object' || component === null || typeof component[MOUNT] !== 'function') {
      throw new TypeError(`${register} expects a mountable component (a gateway or service of fhirgate)`);
    }
    if (typeof options !== 'object' || options === null) throw new TypeError(`${register} options must be an object`);
    onlyKnownKeys(options, APP_OPTION_KEYS.mount, `${register}: options`);
    const mountable = component[MOUNT]();
    if (mountable.kind !== kind) throw new TypeError(`${register} expects a ${kind}; this component is a ${mountable.kind}`);
    const name = options.name ?? component.constructor.name;
    if (typeof name !== 'string' || name === '') throw new TypeError(`${register}: options.name must be a non-empty string`);
    if (registry.has(name)) {
      throw new FhirgateError('ERR_DUPLICATE_NAME', `a ${kind} named "${name}" is already registered; pass { name } to ${register} to mount another`);
    }
    const prefix = normalizePrefix(options.path ?? mountable.defaultPath);
    const routes = [...mountable.routes()];
    const errorReply = typeof mountable.errorReply === 'function' ? mountable.errorReply.bind(mountable) : undefined;
    this.#addEndpoints(
      routes.map((route): Endpoint => ({
        method: route.method,
        path: joinPath(prefix, route.path),
        prefix,
        public: route.public === true,
        ...(errorReply === undefined ? {} : { errorReply }),
        run: (request) => route.handle(request),
      })),
    );
    registry.set(name, component);
    this.#mounted.push({ name, prefix, mountable, routes });
    mountable.useEvents(this.enableEvents ? this.dispatcher : null);
    return this;
  }

  /**
   * The prefix and error reply of the component mounted at the longest prefix that `rawPath` is under
   * (of several at that prefix, the one registered last), if it has one.
   */
  #errorReplyAt(rawPath: string): Pick<Endpoint, 'prefix' | 'errorReply'> | undefined {
    let best: Mounted | undefined;
    for (const m of this.#mounted) {
      const under = m.prefix === '' || rawPath === m.prefix || rawPath.startsWith(`${m.prefix}/`);
      if (under && (best === undefined || m.prefix.length >= best.prefix.length)) best = m;
    }
    const own = best?.mountable.errorReply;
    return typeof own === 'function' ? { prefix: best!.prefix, errorReply: own.bind(best!.mountable) } : undefined;
  }

  #checkInjections(): void {
    for (const endpoint of this.#endpoints as Partial<CustomEndpoint>[]) {
      for (const [key, token] of Object.entries(endpoint.inject ?? {})) {
        if (token.gateway === undefined || this.#gateways.has(token.gateway)) continue;
        const known = [...this.#gateways.keys()].join(', ') || 'none';
        throw new FhirgateError('ERR_UNKNOWN_DEPENDENCY', `route ${endpoint.method} ${endpoint.path} injects "${key}" from gateway "${token.gateway}", which is not registered (registered: ${known})`);
      }
    }
  }

  #status(): Record<string, unknown> {
    const { logger } = this.#options;
    const entries = (kind: Mountable['kind']) =>
      Object.fromEntries(
        this.#mounted
          .filter((m) => m.mountable.kind === kind)
          .map((m) => [m.name, { status: 'active', ...safely(logger, `status of ${m.name}`, () => m.mountable.status(), { status: 'error' }) }]),
      );
    return { gateways: entries('gateway'), services: entries('service'), events: this.#eventsStatus() };
  }

  /** What `/metrics` reads at scrape time: each gateway's status and the dispatcher's counts. */
  #metricsView(): MetricsView {
    const { logger } = this.#options;
    return {
      gateways: () =>
        this.#mounted.filter((m) => m.mountable.kind === 'gateway').map((m) => ({ name: m.name, status: safely(logger, `status of ${m.name}`, () => m.mountable.status(), {}) })),
      events: () => {
        const counts = this.#eventsStatus();
        return typeof this.dispatcher.status === 'function' ? (counts as Record<string, number>) : undefined;
      },
    };
  }

  /** Whether events are on, the dispatcher's class, and its delivery counts when it keeps some. */
  #eventsStatus(): Record<string, unknown> {
    const { dispatcher } = this;
    const counts = typeof dispatcher.status === 'function' ? safely(this.#options.logger, 'status of the event dispatcher', () => dispatcher.status!(), {}) : {};
    return { ...counts, enabled: this.enableEvents, dispatcher: dispatcher.constructor.name };
  }

  #openapi(): { doc: Record<string, unknown>; unmatched: string[] } {
    const { logger, publicPaths, title, version, description, apiKeys } = this.#options;
    const operations: DocumentedOperation[] = [];
    for (const e of this.#endpoints) {
      if (e.operation === undefined) continue;
      const open = e.public || publicPaths.some((p) => samePattern(p, e.path));
      operations.push({ method: e.method, path: toOpenAPIPath(e.path), operation: e.operation, public: open });
    }
    for (const m of this.#mounted) {
      const paths = safely(logger, `openapi of ${m.name}`, () => m.mountable.openapi(), {});
      for (const [relative, item] of Object.entries(paths)) {
        const path = toOpenAPIPath(joinPath(m.prefix, relative));
        for (const [method, operation] of Object.entries(item)) {
          if (operation === undefined) continue;
          const upper = method.toUpperCase() as HTTPMethod;
          const open = m.routes.some((r) => r.public === true && r.method === upper && samePattern(joinPath(m.prefix, r.path), path));
          operations.push({ method: upper, path, operation: { ...operation, tags: operation.tags ?? [m.name] }, public: open });
        }
      }
    }
    return applyOpenAPIExamples(buildOpenAPI({ title, version, description, secured: apiKeys.length > 0 }, operations), this.#options.openapiExamples);
  }
}

/**
 * Creates the application host.
 *
 * @example
 * ```ts
 * const app = createServiceAPI({ title: 'My gateway', apiKeys: ['k1'], cors: { origins: ['https://ehr.example.org'] } });
 * app.registerGateway(gw, { path: '/fhir' });
 * app.get('/summary/:id', { inject: { fhir: getGateway(AsyncFHIRGateway) } },
 *   async (ctx) => ({ patient: await ctx.deps.fhir.read('Patient', ctx.params.id) }));
 * await app.listen(8000);
 * ```
 */
export function createServiceAPI(options: ServiceAPIOptions = {}): ServiceAPI {
  return new ServiceAPI(options);
}
