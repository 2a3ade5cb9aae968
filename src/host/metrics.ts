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
import { performance } from 'node:perf_hooks';
import { ProcessMetrics } from './process-metrics.js';
import { HistogramCounts, renderFamilies, type MetricFamily, type Sample } from './prometheus.js';

/** What the metrics read from the app at scrape time. */
export interface MetricsView {
  /** Every mounted gateway's name and its `status()` document. */
  gateways(): Array<{ name: string; status: Record<string, unknown> }>;
  /** The dispatcher's counts when it keeps some, else `undefined`. */
  events(): Record<string, number> | undefined;
}

const REQUEST_END = 'fhirgate:request:end';
const AUTH_TOKEN = 'fhirgate:auth:token';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * A counter keyed by a label set (its values in a fixed order), kept as a tree of maps, one level a
 * label: counting a request looks up its values and builds no key (a JSON key made per request was a
 * third of the metrics' cost per request).
 */
class LabelledCounts {
  readonly #root = new Map<string, unknown>();
  add(values: readonly string[], by = 1): void {
    let level = this.#root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    level.set(values[last]!, ((level.get(values[last]!) as number | undefined) ?? 0) + by);
  }
  entries(): Array<[string[], number]> {
    const out: Array<[string[], number]> = [];
    const walk = (level: Map<string, unknown>, prefix: string[]): void => {
      for (const [value, below] of level) {
        if (typeof below === 'number') out.push([[...prefix, value], below]);
        else walk(below as Map<string, unknown>, [...prefix, value]);
      }
    };
    walk(this.#root, []);
    return out;
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

/** How often, at most, an upstream origin no label is known for makes the metrics re-read the sources. */
const ORIGIN_REFRESH_MS = 1_000;

/**
 * The host's metrics. Subscribes to the `fhirgate:request:end` and `fhirgate:auth:token` channels
 * until {@link HostMetrics.close}: upstream calls of every gateway in this process are counted,
 * labelled with the source names of their origin, or `other` for an origin no mounted gateway names:
 * folded when the call is counted, so that origins callers name (CDS prefetch) cannot grow the set.
 */
export class HostMetrics {
  readonly #view: MetricsView;
  readonly #requests = new LabelledCounts();
  readonly #latency = new Map<string, HistogramCounts>();
  readonly #upstream = new LabelledCounts();
  readonly #tokens = new LabelledCounts();
  readonly #process = new ProcessMetrics();
  /** Origin → its label (the names of the sources at that origin, `a|b`); re-read on a miss, at most once a second. */
  #origins = new Map<string, string>();
  #originsReadAt = -Infinity;
  readonly #onRequestEnd = (message: unknown): void => {
    const m = message as { method?: unknown; origin?: unknown; status?: unknown };
    this.#upstream.add([this.#sourceOf(String(m.origin)), typeof m.method === 'string' && METHODS.has(m.method) ? m.method : 'other', typeof m.status === 'number' ? String(m.status) : 'error']);
  };
  readonly #onToken = (message: unknown): void => {
    this.#tokens.add([(message as { error?: unknown }).error === undefined ? 'ok' : 'failed']);
  };
  #closed = false;

  constructor(view: MetricsView) {
    this.#view = view;
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

  #sourceOf(origin: string): string {
    const known = this.#origins.get(origin);
    if (known !== undefined || performance.now() - this.#originsReadAt < ORIGIN_REFRESH_MS) return known ?? 'other';
    this.#readOrigins(this.#view.gateways());
    return this.#origins.get(origin) ?? 'other';
  }

  #readOrigins(gateways: ReturnType<MetricsView['gateways']>): void {
    const names = new Map<string, string[]>();
    for (const g of gateways) for (const [source, s] of poolSources(g.status)) names.set(String(s.origin), [...(names.get(String(s.origin)) ?? []), source]);
    this.#origins = new Map([...names].map(([origin, sources]) => [origin, sources.join('|')]));
    this.#originsReadAt = performance.now();
  }

  /** The metric families, read now: the host's own, then the process's. */
  collect(): MetricFamily[] {
    const gateways = this.#view.gateways();
    this.#readOrigins(gateways);
    const pool: Sample[] = gateways.flatMap((g) =>
      poolSources(g.status).flatMap(([source, s]) => [
        { labels: { gateway: g.name, source, state: 'in_use' }, value: num(s.active) },
        { labels: { gateway: g.name, source, state: 'idle' }, value: num(s.idle) },
        { labels: { gateway: g.name, source, state: 'queued' }, value: num(s.queued) },
      ]),
    );
    const tokens = new Map(this.#tokens.entries().map(([[result], n]) => [result, n]));
    const events = this.#view.events();
    return [
      { name: 'fhirgate_http_requests_total', type: 'counter', help: 'Requests answered by the host, by method, route template and status.',
        samples: this.#requests.entries().map(([[method, route, status], value]) => ({ labels: { method: method!, route: route!, status: status! }, value })) },
      { name: 'fhirgate_http_request_duration_seconds', type: 'histogram', help: 'Time to answer a request, by route template.',
        samples: [...this.#latency].flatMap(([route, h]) => h.samples({ route })) },
      { name: 'fhirgate_upstream_requests_total', type: 'counter', help: 'Requests sent to FHIR servers and token endpoints, by source, method and status (error: no answer).',
        samples: this.#upstream.entries().map(([[source, method, status], value]) => ({ labels: { source: source!, method: method!, status: status! }, value })) },
      { name: 'fhirgate_pool_connections', type: 'gauge', help: 'Connections of each source: in use, idle, and requests queued for one.', samples: pool },
      { name: 'fhirgate_token_fetches_total', type: 'counter', help: 'Access-token requests sent.', samples: [{ labels: {}, value: (tokens.get('ok') ?? 0) + (tokens.get('failed') ?? 0) }] },
      { name: 'fhirgate_token_failures_total', type: 'counter', help: 'Access-token requests that failed.', samples: [{ labels: {}, value: tokens.get('failed') ?? 0 }] },
      ...(events === undefined
        ? []
        : [
            { name: 'fhirgate_events_total', type: 'counter', help: 'Events by outcome: sent (acknowledged by the sink or stream), published (handed to core NATS, unacknowledged), retried, dropped.',
              samples: EVENT_OUTCOMES.filter((outcome) => outcome in events).map((outcome) => ({ labels: { outcome }, value: num(events[outcome]) })) },
            { name: 'fhirgate_events_queued', type: 'gauge', help: 'Events waiting or being delivered.', samples: [{ labels: {}, value: num(events.queued) }] },
          ] satisfies MetricFamily[]),
      ...this.#process.collect(),
    ];
  }

  /** Stops listening to the channels and watching the process. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    diagnostics_channel.unsubscribe(REQUEST_END, this.#onRequestEnd);
    diagnostics_channel.unsubscribe(AUTH_TOKEN, this.#onToken);
    this.#process.close();
  }
}

/**
 * The `GET /metrics` endpoint (`text/plain; version=0.0.4`). Not public: it needs the API key when keys
 * are set, unless `/metrics` is put in `publicPaths`.
 */
export function metricsEndpoint(collect: () => readonly MetricFamily[] | Promise<readonly MetricFamily[]>, isPublic: boolean): Endpoint {
  return {
    method: 'GET',
    path: '/metrics',
    prefix: '',
    public: isPublic,
    operation: {
      summary: 'Metrics',
      description: 'Prometheus text exposition format 0.0.4: requests, latency, upstream calls, pools, tokens, events, and the process (memory, heap, event-loop lag, GC, handles).',
      tags: ['host'],
      responses: { 200: { description: 'Metrics', content: { 'text/plain': {} } }, default: ERROR_RESPONSE },
    },
    run: async () => ({ status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' }, body: renderFamilies(await collect()) }),
  };
}
