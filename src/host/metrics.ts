/**
 * `GET /metrics`: what the host counts itself (requests by route template and status, latency) and
 * what it reads from the parts it hosts at scrape time: the `diagnostics_channel` messages of upstream
 * calls and token fetches, each gateway's `status()` (pool in use / idle / queued), and the dispatcher's
 * `status()` (events sent / retried / dropped). Labels hold route templates, source names, methods and
 * statuses only: never a path, an id, a query or a header.
 * @module
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { ERROR_RESPONSE } from './openapi.js';
import type { Endpoint } from './pipeline.js';
import { family, HistogramCounts, type Sample } from './prometheus.js';

/**
 * What the metrics read from the app at scrape time.
 *
 * @example
 * ```ts
 * const view: MetricsView = { gateways: () => [{ name: 'AsyncFHIRGateway', status: gw[MOUNT]().status() }], events: () => undefined };
 * ```
 */
export interface MetricsView {
  /** Every mounted gateway's name and its `status()` document. */
  gateways(): Array<{ name: string; status: Record<string, unknown> }>;
  /** The dispatcher's counts when it keeps some, else `undefined`. */
  events(): Record<string, number> | undefined;
}

const REQUEST_END = 'fhirgate:request:end';
const AUTH_TOKEN = 'fhirgate:auth:token';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A counter keyed by a label set (kept as JSON of its values in a fixed order). */
class LabelledCounts {
  readonly #counts = new Map<string, number>();
  add(values: readonly string[], by = 1): void {
    const key = JSON.stringify(values);
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + by);
  }
  entries(): Array<[string[], number]> {
    return [...this.#counts].map(([key, n]) => [JSON.parse(key) as string[], n]);
  }
}

interface SourcePool {
  origin?: unknown;
  active?: unknown;
  idle?: unknown;
  queued?: unknown;
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
/** The delivery counts of a dispatcher that become `outcome` labels, when its `status()` has them. */
const EVENT_OUTCOMES = ['sent', 'published', 'retried', 'dropped'];

/** The `connection_pool.sources` map of a gateway's status document, when it has one. */
function poolSources(status: Record<string, unknown>): Array<[string, SourcePool]> {
  const pool = status.connection_pool as { sources?: unknown } | undefined;
  const sources = typeof pool === 'object' && pool !== null ? pool.sources : undefined;
  if (typeof sources !== 'object' || sources === null) return [];
  return Object.entries(sources as Record<string, SourcePool>).filter(([, s]) => typeof s === 'object' && s !== null);
}

/**
 * The host's metrics. Subscribes to the `fhirgate:request:end` and `fhirgate:auth:token` channels
 * until {@link HostMetrics.close}: upstream calls of every gateway in this process are counted,
 * labelled with the source names of their origin (`other` for an origin no mounted gateway names).
 *
 * @example
 * ```ts
 * const metrics = new HostMetrics();
 * metrics.observe('GET', '/fhir/transform/:type/:id', 200, 0.012);
 * const text = metrics.render(view);
 * metrics.close();
 * ```
 */
export class HostMetrics {
  readonly #requests = new LabelledCounts();
  readonly #latency = new Map<string, HistogramCounts>();
  readonly #upstream = new LabelledCounts();
  readonly #tokens = new LabelledCounts();
  readonly #onRequestEnd = (message: unknown): void => {
    const m = message as { method?: unknown; origin?: unknown; status?: unknown };
    this.#upstream.add([String(m.origin), typeof m.method === 'string' && METHODS.has(m.method) ? m.method : 'other', typeof m.status === 'number' ? String(m.status) : 'error']);
  };
  readonly #onToken = (message: unknown): void => {
    this.#tokens.add([(message as { error?: unknown }).error === undefined ? 'ok' : 'failed']);
  };
  #closed = false;

  constructor() {
    diagnostics_channel.subscribe(REQUEST_END, this.#onRequestEnd);
    diagnostics_channel.subscribe(AUTH_TOKEN, this.#onToken);
  }

  /** Counts one answered request: `route` is the matched template, `null` when no route matched. */
  observe(method: string, route: string | null, status: number, seconds: number): void {
    const template = route ?? 'unmatched';
    this.#requests.add([METHODS.has(method) ? method : 'other', template, String(status)]);
    let histogram = this.#latency.get(template);
    if (histogram === undefined) this.#latency.set(template, (histogram = new HistogramCounts()));
    histogram.observe(seconds);
  }

  /** The exposition text. */
  render(view: MetricsView): string {
    const gateways = view.gateways();
    const byOrigin = new Map<string, string[]>();
    for (const g of gateways) for (const [source, s] of poolSources(g.status)) byOrigin.set(String(s.origin), [...(byOrigin.get(String(s.origin)) ?? []), source]);
    const upstream = new LabelledCounts();
    for (const [[origin, method, status], n] of this.#upstream.entries()) upstream.add([(byOrigin.get(origin!) ?? ['other']).join('|'), method!, status!], n);
    const pool: Sample[] = gateways.flatMap((g) =>
      poolSources(g.status).flatMap(([source, s]) => [
        { labels: { gateway: g.name, source, state: 'in_use' }, value: num(s.active) },
        { labels: { gateway: g.name, source, state: 'idle' }, value: num(s.idle) },
        { labels: { gateway: g.name, source, state: 'queued' }, value: num(s.queued) },
      ]),
    );
    const tokens = new Map(this.#tokens.entries().map(([[result], n]) => [result, n]));
    const events = view.events();
    return [
      family('fhirgate_http_requests_total', 'counter', 'Requests answered by the host, by method, route template and status.',
        this.#requests.entries().map(([[method, route, status], value]) => ({ labels: { method: method!, route: route!, status: status! }, value }))),
      family('fhirgate_http_request_duration_seconds', 'histogram', 'Time to answer a request, by route template.',
        [...this.#latency].flatMap(([route, h]) => h.samples({ route }))),
      family('fhirgate_upstream_requests_total', 'counter', 'Requests sent to FHIR servers and token endpoints, by source, method and status (error: no answer).',
        upstream.entries().map(([[source, method, status], value]) => ({ labels: { source: source!, method: method!, status: status! }, value }))),
      family('fhirgate_pool_connections', 'gauge', 'Connections of each source: in use, idle, and requests queued for one.', pool),
      family('fhirgate_token_fetches_total', 'counter', 'Access-token requests sent.', [{ labels: {}, value: (tokens.get('ok') ?? 0) + (tokens.get('failed') ?? 0) }]),
      family('fhirgate_token_failures_total', 'counter', 'Access-token requests that failed.', [{ labels: {}, value: tokens.get('failed') ?? 0 }]),
      ...(events === undefined
        ? []
        : [
            family('fhirgate_events_total', 'counter', 'Events by outcome: sent (acknowledged by the sink or stream), published (handed to core NATS, unacknowledged), retried, dropped.',
              EVENT_OUTCOMES.filter((outcome) => outcome in events).map((outcome) => ({ labels: { outcome }, value: num(events[outcome]) }))),
            family('fhirgate_events_queued', 'gauge', 'Events waiting or being delivered.', [{ labels: {}, value: num(events.queued) }]),
          ]),
    ].join('');
  }

  /** Stops listening to the channels. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    diagnostics_channel.unsubscribe(REQUEST_END, this.#onRequestEnd);
    diagnostics_channel.unsubscribe(AUTH_TOKEN, this.#onToken);
  }
}

/**
 * The `GET /metrics` endpoint (`text/plain; version=0.0.4`). Not public: it needs the API key when keys
 * are set, unless `/metrics` is put in `publicPaths`.
 *
 * @example
 * ```ts
 * router.add('GET', '/metrics', metricsEndpoint(metrics, view));
 * ```
 */
export function metricsEndpoint(metrics: HostMetrics, view: MetricsView, isPublic: boolean): Endpoint {
  return {
    method: 'GET',
    path: '/metrics',
    prefix: '',
    public: isPublic,
    operation: {
      summary: 'Metrics',
      description: 'Prometheus text exposition format 0.0.4: requests, latency, upstream calls, pools, tokens, events.',
      tags: ['host'],
      responses: { 200: { description: 'Metrics', content: { 'text/plain': {} } }, default: ERROR_RESPONSE },
    },
    run: () => ({ status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' }, body: metrics.render(view) }),
  };
}
