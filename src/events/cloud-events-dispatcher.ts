/**
 * `CloudEventsDispatcher`: fhirgate events POSTed to an HTTP sink under the CloudEvents 1.0 HTTP
 * protocol binding (structured, binary or batched content mode).
 * @module
 */
import type { Agent } from 'node:http';
import { ProxyAgents } from '../http/proxy-agents.js';
import type { ProxyOptions } from '../http/proxy-options.js';
import { binaryHeaders, type CloudEvent } from './cloud-event.js';
import type { DeliveryCounts, DeliveryVerdict } from './delivery-queue.js';
import { request } from '../http/request.js';
import { keysOf, numberOption } from '../lib/options.js';
import { spanInTrace, startTrace } from '../lib/trace-context.js';
import { runInTrace } from '../lib/trace-scope.js';
import { QUEUED_OPTION_KEYS, QueuedDispatcher, type QueuedDispatcherOptions } from './queued-dispatcher.js';

/** Bytes of a sink's answer read at most: the answer is only looked at for its status. */
const SINK_ANSWER_BYTES = 1024 * 1024;

/**
 * The content mode: one JSON event per request, one event with `ce-` headers, or a JSON array of events.
 *
 * @example
 * ```ts
 * const mode: CloudEventsMode = 'binary';
 * ```
 */
export type CloudEventsMode = 'structured' | 'binary' | 'batch';

/**
 * Options of {@link CloudEventsDispatcher}.
 *
 * @example
 * ```ts
 * const options: CloudEventsDispatcherOptions = { url: 'https://sink.example.org/e', source: 'urn:fhirgate:eu-1', mode: 'batch', batchSize: 50 };
 * ```
 */
export interface CloudEventsDispatcherOptions extends QueuedDispatcherOptions {
  /** The sink: an absolute http(s) URL, POSTed to, without credentials (`user:pass@` is refused: use `headers`). Required. */
  url: string;
  /** Default `'structured'` (`application/cloudevents+json`); `'batch'` sends `application/cloudevents-batch+json`. */
  mode?: CloudEventsMode;
  /** Events in one request in `'batch'` mode, at most. Default 100. */
  batchSize?: number;
  /**
   * Extra headers of every request, e.g. the sink's credentials (`authorization: 'Basic ' + base64('user:pass')`
   * or a bearer token). Never put in an event, never logged. Default none.
   */
  headers?: Record<string, string>;
  /** Requests to the sink at once. Default 4. */
  concurrency?: number;
  /** Time-out of one request, in ms. Default 5000. */
  timeoutMs?: number;
  /** First retry back-off, in ms (doubling, random in [d/2, d]). Default 100. */
  retryBaseDelayMs?: number;
  /** Longest retry back-off, in ms. Default 2000. */
  maxRetryDelayMs?: number;
  /** The outbound HTTP proxy to the sink (see `ProxyOptions`: `{ https, http, noProxy }`). Default: none, direct. */
  proxy?: ProxyOptions;
}

/** The keys of {@link CloudEventsDispatcherOptions}; any other is refused with the nearest of these. */
export const CLOUD_EVENTS_OPTION_KEYS: readonly string[] = Object.freeze([
  ...QUEUED_OPTION_KEYS,
  ...keysOf<Omit<CloudEventsDispatcherOptions, keyof QueuedDispatcherOptions>>({
    url: true, mode: true, batchSize: true, headers: true, concurrency: true, timeoutMs: true, retryBaseDelayMs: true, maxRetryDelayMs: true, proxy: true,
  }),
]);

const OWNER = 'CloudEventsDispatcher';
const MODES: readonly CloudEventsMode[] = ['structured', 'binary', 'batch'];
const STRUCTURED = 'application/cloudevents+json; charset=utf-8';
const BATCH = 'application/cloudevents-batch+json; charset=utf-8';

/** A misused option whose type is right but whose value can never work; `code` as Node's own. */
function invalidValue(message: string): TypeError {
  return Object.assign(new TypeError(`${OWNER}: ${message}`), { code: 'ERR_INVALID_ARG_VALUE' as const });
}

function checkUrl(url: unknown): string {
  if (typeof url !== 'string' || !URL.canParse(url)) throw new TypeError(`${OWNER}: options.url must be an absolute http(s) URL`);
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`${OWNER}: options.url must be an absolute http(s) URL`);
  // Every request to such a URL would fail: nothing would ever be delivered. The message never repeats the URL.
  if (parsed.username !== '' || parsed.password !== '') {
    throw invalidValue('options.url must not hold credentials (user:password@); send them in options.headers, e.g. { authorization: \'Basic …\' }');
  }
  return parsed.href;
}

function checkHeaders(headers: unknown): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null || Object.values(headers).some((v) => typeof v !== 'string')) {
    throw new TypeError(`${OWNER}: options.headers must be an object of strings`);
  }
  try {
    new Headers(headers as Record<string, string>);
  } catch {
    // Names and values are not repeated: a value may be a credential.
    throw invalidValue('options.headers holds a header name or value HTTP does not allow (a control character, a line break, a non-token name)');
  }
  return { ...(headers as Record<string, string>) };
}

/** 2xx: delivered; 408, 429 and 5xx: worth another try; any other answer (3xx, 4xx) will not change. */
function verdictOf(status: number): DeliveryVerdict {
  if (status >= 200 && status < 300) return 'sent';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return { drop: `the sink answered ${status}` };
}

/**
 * An {@link EventDispatcher} that sends every event to an HTTP sink as a CloudEvent (`id` a UUID,
 * `source` from the options, `type` the event name, `time`, `datacontenttype: application/json`, the
 * payload as `data`). Delivery runs in the background from a bounded queue: `emit` never blocks and
 * never fails a request. A 2xx answer is delivered; a network error, a time-out, 408, 429 or 5xx is
 * retried with back-off for as long as the dispatcher is open; any other answer (3xx, 4xx) drops the
 * event, and the first drop of each reason is logged
 * (`dropLogger`). `status()` (shown in `/gateway/status`) counts sent, retried, dropped and queued
 * events. Delivery is at least once: a sink that answers too late may get an event twice (same `id`).
 *
 * @throws TypeError for a bad option; with `code: 'ERR_INVALID_ARG_VALUE'` for a URL with credentials
 * or a header HTTP does not allow. RangeError for a number out of range.
 *
 * @example
 * ```ts
 * const dispatcher = new CloudEventsDispatcher({ url: 'https://events.example.org/ingest', source: 'urn:fhirgate:eu-1' });
 * const app = createServiceAPI({ dispatcher });
 * // on shutdown: await app.close(); await dispatcher.close();
 * ```
 */
export class CloudEventsDispatcher extends QueuedDispatcher {
  readonly #url: string;
  readonly #mode: CloudEventsMode;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  /** The agent through the proxy to the sink, or `undefined` (no proxy, or the sink is on `noProxy`). */
  readonly #agent: Agent | undefined;

  constructor(options: CloudEventsDispatcherOptions) {
    const o = (typeof options === 'object' && options !== null ? options : {}) as Partial<CloudEventsDispatcherOptions>;
    const mode = o.mode ?? 'structured';
    if (!MODES.includes(mode)) throw new TypeError(`${OWNER}: options.mode must be one of ${MODES.join(', ')}`);
    const retryBaseDelayMs = numberOption(o.retryBaseDelayMs, `${OWNER}: options.retryBaseDelayMs`, 100, { integer: true, min: 1 });
    super(OWNER, options, {
      concurrency: numberOption(o.concurrency, `${OWNER}: options.concurrency`, 4, { integer: true, min: 1 }),
      batchSize: mode === 'batch' ? numberOption(o.batchSize, `${OWNER}: options.batchSize`, 100, { integer: true, min: 1 }) : 1,
      retryBaseDelayMs,
      maxRetryDelayMs: numberOption(o.maxRetryDelayMs, `${OWNER}: options.maxRetryDelayMs`, Math.max(2000, retryBaseDelayMs), { integer: true, min: retryBaseDelayMs }),
    }, CLOUD_EVENTS_OPTION_KEYS);
    this.#url = checkUrl(o.url);
    this.#mode = mode;
    this.#headers = checkHeaders(o.headers);
    this.#timeoutMs = numberOption(o.timeoutMs, `${OWNER}: options.timeoutMs`, 5000, { integer: true, min: 1 });
    this.#agent = new ProxyAgents(o.proxy, `${OWNER}: options.proxy`).agentFor(new URL(this.#url));
  }

  /** Delivers or drops what is queued (see `QueuedDispatcher.close`), then closes the connections through the proxy. */
  override async close(): Promise<void> {
    await super.close();
    this.#agent?.destroy();
  }

  /** `{ sent, retried, dropped, queued }`: `sent` counts events the sink answered with a 2xx. */
  override status(): DeliveryCounts {
    return this.counts();
  }

  protected async deliver(batch: CloudEvent[]): Promise<DeliveryVerdict> {
    const [first] = batch;
    if (first === undefined) return 'sent';
    const [headers, body] =
      this.#mode === 'batch'
        ? [{ 'content-type': BATCH }, JSON.stringify(batch)]
        : this.#mode === 'binary'
          ? [binaryHeaders(first), JSON.stringify(first.data)]
          : [{ 'content-type': STRUCTURED }, JSON.stringify(first)];
    // Sent like every outbound request, through src/http; the queue does the retrying, so one try each.
    // The URL and headers were checked when the dispatcher was made: a rejection is the network's
    // (retried). A redirect is never followed: it is an answer that will not change (dropped).
    // One event's delivery continues that event's trace (its payload's trace_id); a batch serves many: a trace of its own.
    const trace = (this.#mode === 'batch' ? undefined : spanInTrace(first.data.trace_id)) ?? startTrace();
    const { status } = await runInTrace(trace, request, this.#url, { method: 'POST', headers: { ...this.#headers, ...headers }, body, timeoutMs: this.#timeoutMs, retry: false, maxResponseBytes: SINK_ANSWER_BYTES, agent: this.#agent });
    return verdictOf(status);
  }
}
