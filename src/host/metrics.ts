/**
 * `GET /metrics`: what the host counts itself (requests by route template and status, latency) and
 * what it reads from the parts it hosts at scrape time: the `diagnostics_channel` messages of upstream
 * calls (latency by source and interaction), token fetches, pool waits and lost AuditEvents, each gateway's `status()` (pool in use / idle / queued), and the dispatcher's
 * `status()` (events sent / retried / dropped). Labels hold route templates, source names, methods and
 * statuses only: never a path, an id, a query or a header.
 * @module
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { ERROR_RESPONSE } from './openapi.js';
import type { Endpoint } from './pipeline.js';
import { performance } from 'node:perf_hooks';
import { ProcessMetrics } from './process-metrics.js';
import { UPSTREAM_INTERACTIONS } from '../lib/upstream-interactions.js';
import { CLIENT_BUCKETS, HistogramCounts, renderFamilies, type Labels, type MetricFamily, type Sample } from './prometheus.js';

/** What the metrics read from the app at scrape time. */
export interface MetricsView {
  /** Every mounted gateway's name and its `status()` document. */
  gateways(): Array<{ name: string; status: Record<string, unknown> }>;
  /** The dispatcher's counts when it keeps some, else `undefined`. */
  events(): Record<string, number> | undefined;
}

const REQUEST_END = 'fhirgate:request:end';
const AUTH_TOKEN = 'fhirgate:auth:token';
const POOL_WAIT = 'fhirgate:pool:wait';
const AUDIT_LOST = 'fhirgate:audit:lost';
const INTERACTIONS: ReadonlySet<string> = new Set(UPSTREAM_INTERACTIONS);
const LOSS_REASONS: ReadonlySet<string> = new Set(['queue_full', 'refused', 'failed']);
/** An upstream status as a label: the code when it is one HTTP defines room for (100–599), else `other`. */
const statusLabel = (status: unknown): string => (typeof status !== 'number' ? 'error' : status >= 100 && status <= 599 ? String(status | 0) : 'other');
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Values keyed by a label set (its values in a fixed order), kept as a tree of maps, one level a label:
 * an observation looks up its values and builds no key (a JSON key made per request was a third of the
 * metrics' cost per request). `make` makes the value of a label set seen the first time.
 */
class LabelTree<T extends object> {
  readonly #root = new Map<string, unknown>();
  readonly #make: () => T;
  constructor(make: () => T) {
    this.#make = make;
  }
  at(values: readonly string[]): T {
    let level = this.#root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    let leaf = level.get(values[last]!) as T | undefined;
    if (leaf === undefined) level.set(values[last]!, (leaf = this.#make()));
    return leaf;
  }
  entries(): Array<[string[], T]> {
    const out: Array<[string[], T]> = [];
    const walk = (level: Map<string, unknown>, prefix: string[]): void => {
      for (const [value, below] of level) {
        if (below instanceof Map) walk(below as Map<string, unknown>, [...prefix, value]);
        else out.push([[...prefix, value], below as T]);
      }
    };
    walk(this.#root, []);
    return out;
  }
}

/** A counter per label set. */
class LabelledCounts extends LabelTree<{ n: number }> {
  constructor() {
    super(() => ({ n: 0 }));
  }
  add(values: readonly string[], by = 1): void {
    this.at(values).n += by;
  }
  /** The samples, the label names in the order of the values. */
  samples(names: readonly string[]): Sample[] {
    return this.entries().map(([values, { n }]) => ({ labels: labelsOf(names, values), value: n }));
  }
}

/** A histogram per label set, with `buckets`. */
class LabelledHistograms extends LabelTree<HistogramCounts> {
  constructor(buckets: readonly number[]) {
    super(() => new HistogramCounts(buckets));
  }
  /** The samples of every histogram, the label names in the order of the values. */
  samples(names: readonly string[]): Sample[] {
    return this.entries().flatMap(([values, h]) => h.samples(labelsOf(names, values)));
  }
}

const labelsOf = (names: readonly string[], values: readonly string[]): Labels => Object.fromEntries(names.map((name, i) => [name, values[i]!]));

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
 * The host's metrics. Subscribes to the `fhirgate:request:end`, `fhirgate:auth:token`,
 * `fhirgate:pool:wait` and `fhirgate:audit:lost` channels until {@link HostMetrics.close}: upstream calls
 * of every gateway in this process are counted, labelled with the source the gateway named in the
 * message, else with the source names of their origin, or `other` for an origin no mounted gateway
 * names: folded when the call is counted, so that origins callers name (CDS prefetch) cannot grow the set.
 */
export class HostMetrics {
  readonly #view: MetricsView;
  readonly #requests = new LabelledCounts();
  readonly #latency = new Map<string, HistogramCounts>();
  readonly #upstream = new LabelledCounts();
  readonly #upstreamLatency = new LabelledHistograms(CLIENT_BUCKETS);
  readonly #tokens = new LabelledCounts();
  readonly #poolWaits = new LabelledHistograms(CLIENT_BUCKETS);
  readonly #auditLost = new LabelledCounts();
  readonly #process = new ProcessMetrics();
  /** Origin → its label (the names of the sources at that origin, `a|b`); re-read on a miss, at most once a second. */
  #origins = new Map<string, string>();
  #originsReadAt = -Infinity;
  readonly #onRequestEnd = (message: unknown): void => {
    const m = message as { method?: unknown; origin?: unknown; status?: unknown; source?: unknown; interaction?: unknown; durationMs?: unknown };
    const source = this.#sourceIn(m);
    this.#upstream.add([source, typeof m.method === 'string' && METHODS.has(m.method) ? m.method : 'other', statusLabel(m.status)]);
    if (typeof m.durationMs === 'number') {
      const interaction = typeof m.interaction === 'string' && INTERACTIONS.has(m.interaction) ? m.interaction : 'other';
      this.#upstreamLatency.at([source, interaction]).observe(m.durationMs / 1000);
    }
  };
  readonly #onToken = (message: unknown): void => {
    const m = message as { error?: unknown; source?: unknown };
    this.#tokens.add([typeof m.source === 'string' ? m.source : 'other', m.error === undefined ? 'ok' : 'failed']);
  };
  readonly #onPoolWait = (message: unknown): void => {
    const m = message as { origin?: unknown; source?: unknown; waitMs?: unknown };
    if (typeof m.waitMs === 'number') this.#poolWaits.at([this.#sourceIn(m)]).observe(m.waitMs / 1000);
  };
  readonly #onAuditLost = (message: unknown): void => {
    const m = message as { count?: unknown; reason?: unknown };
    if (typeof m.count === 'number' && m.count > 0) this.#auditLost.add([typeof m.reason === 'string' && LOSS_REASONS.has(m.reason) ? m.reason : 'other'], m.count);
  };
  #closed = false;

  constructor(view: MetricsView) {
    this.#view = view;
    diagnostics_channel.subscribe(REQUEST_END, this.#onRequestEnd);
    diagnostics_channel.subscribe(AUTH_TOKEN, this.#onToken);
    diagnostics_channel.subscribe(POOL_WAIT, this.#onPoolWait);
    diagnostics_channel.subscribe(AUDIT_LOST, this.#onAuditLost);
  }

  /** Counts one answered request: `route` is the matched template, `null` when no route matched. */
  observe(method: string, route: string | null, status: number, seconds: number): void {
    const template = route ?? 'unmatched';
    this.#requests.add([METHODS.has(method) ? method : 'other', template, String(status)]);
    let histogram = this.#latency.get(template);
    if (histogram === undefined) this.#latency.set(template, (histogram = new HistogramCounts()));
    histogram.observe(seconds);
  }

  /** The source a message names, else the sources of its origin. */
  #sourceIn(m: { origin?: unknown; source?: unknown }): string {
    return typeof m.source === 'string' ? m.source : this.#sourceOf(String(m.origin));
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
    const tokens = this.#tokens.entries();
    const bySource = (result: string | undefined): Sample[] => {
      const counts = new Map<string, number>();
      for (const [[source, r], { n }] of tokens) counts.set(source!, (counts.get(source!) ?? 0) + (result === undefined || r === result ? n : 0));
      return [...counts].map(([source, value]) => ({ labels: { source }, value }));
    };
    const events = this.#view.events();
    return [
      { name: 'fhirgate_http_requests_total', type: 'counter', help: 'Requests answered by the host, by method, route template and status.',
        samples: this.#requests.samples(['method', 'route', 'status']) },
      { name: 'fhirgate_http_request_duration_seconds', type: 'histogram', help: 'Time to answer a request, by route template.',
        samples: [...this.#latency].flatMap(([route, h]) => h.samples({ route })) },
      { name: 'fhirgate_upstream_requests_total', type: 'counter', help: 'Requests sent to FHIR servers and token endpoints, by source, method and status (error: no answer).',
        samples: this.#upstream.samples(['source', 'method', 'status']) },
      { name: 'fhirgate_upstream_request_duration_seconds', type: 'histogram', help: 'Time of each request sent to a FHIR server or token endpoint (each retry its own), by source and FHIR interaction.',
        samples: this.#upstreamLatency.samples(['source', 'interaction']) },
      { name: 'fhirgate_pool_connections', type: 'gauge', help: 'Connections of each source: in use, idle, and requests queued for one.', samples: pool },
      { name: 'fhirgate_pool_wait_duration_seconds', type: 'histogram', help: 'Time requests waited for a connection, by source (only requests that waited).',
        samples: this.#poolWaits.samples(['source']) },
      { name: 'fhirgate_token_fetches_total', type: 'counter', help: 'Access-token requests sent, by source.', samples: bySource(undefined) },
      { name: 'fhirgate_token_failures_total', type: 'counter', help: 'Access-token requests that failed, by source.', samples: bySource('failed') },
      { name: 'fhirgate_audit_events_lost_total', type: 'counter', help: 'AuditEvents the facade could not store, by reason: queue_full, refused (by the audit source), failed (the audit source failed or was unreachable).',
        samples: this.#auditLost.samples(['reason']) },
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
    diagnostics_channel.unsubscribe(POOL_WAIT, this.#onPoolWait);
    diagnostics_channel.unsubscribe(AUDIT_LOST, this.#onAuditLost);
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
