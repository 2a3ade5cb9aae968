/**
 * A load client on `node:http` that counts what autocannon does not: connections reset, connections
 * closed without an answer, refusals and time-outs, each apart from answers by status. For the cluster
 * tests and `npm run scale-test`; loopback only, bounded in time.
 */
import { Agent, request } from 'node:http';

/** What the load saw. A request is counted once, in exactly one of these. */
export interface LoadCounts {
  /** Requests started. */
  sent: number;
  /** Answers by status (`'200'`, `'503'`, …). */
  status: Record<string, number>;
  /** The connection was reset (`read ECONNRESET`, `EPIPE`): the request may or may not have run. */
  reset: number;
  /** The server closed the connection without an answer (`socket hang up`). */
  closedWithoutAnswer: number;
  /** The connection was refused (nothing listens any more): the request never reached a server. */
  refused: number;
  /** No answer within the per-request time-out. */
  timedOut: number;
  /** Any other error, by code. */
  errors: Record<string, number>;
}

/** Options of {@link runLoad}. */
export interface LoadOptions {
  /** `http://127.0.0.1:<port>/path`. */
  readonly url: string;
  /** Concurrent request loops; with `keepAlive` each keeps one connection of its own. */
  readonly connections: number;
  /** Reuse connections (HTTP/1.1 keep-alive) or open one per request (`Connection: close`). */
  readonly keepAlive: boolean;
  /**
   * Per request, in ms. Default 30 000: the tests require no request to fail, and a request answered
   * late on a loaded machine is not a lost one (a lost one still fails them, at the time-out).
   */
  readonly requestTimeoutMs?: number;
  /** The load stops at the latest after this long, in ms, whatever `until` does. Default 120 000. */
  readonly maxDurationMs?: number;
  /** Pause after a refusal, in ms, so that a stopped server is not hammered. Default 20. */
  readonly refusedPauseMs?: number;
  /** What each request sends (called once per request); default a GET without a body. */
  readonly request?: () => LoadRequest;
  /** When given, every request's {@link LoadSample} is pushed here (for latencies over a time window). */
  readonly samples?: LoadSample[];
}

/** One request of a load: method, headers and body. */
export interface LoadRequest {
  readonly method: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** One request as the client saw it. */
export interface LoadSample {
  /** Which request loop sent it (0 to `connections` - 1): a loop's samples are in the order it sent them. */
  readonly loop: number;
  /** When it started (`performance.now()`) and how long it took, in ms. */
  readonly at: number;
  readonly ms: number;
  /** The answer's status, or 0 when there was none. */
  readonly status: number;
  /** The connection-level error's code when there was no answer (`ECONNRESET`, `ECONNREFUSED`, `'hang up'`, …). */
  readonly error?: string;
  /** The answer's `Retry-After` header, if any. */
  readonly retryAfter?: string;
}

/** Requests that failed at the connection level or with a non-2xx answer (refusals are counted apart). */
export function failures(counts: LoadCounts): number {
  const non2xx = Object.entries(counts.status).filter(([s]) => !s.startsWith('2')).reduce((n, [, c]) => n + c, 0);
  return counts.reset + counts.closedWithoutAnswer + counts.timedOut + non2xx + Object.values(counts.errors).reduce((n, c) => n + c, 0);
}

/** One line for a test's diagnostics or a report. */
export function describeLoad(name: string, c: LoadCounts): string {
  return `${name}: sent ${c.sent}, answered ${answered(c)}, status ${JSON.stringify(c.status)}, reset ${c.reset}, closed without answer ${c.closedWithoutAnswer}, refused ${c.refused}, timed out ${c.timedOut}, errors ${JSON.stringify(c.errors)}`;
}

/** Answered with a 2xx. */
export function answered(counts: LoadCounts): number {
  return Object.entries(counts.status).filter(([s]) => s.startsWith('2')).reduce((n, [, c]) => n + c, 0);
}

type Outcome = { status: number; retryAfter?: string } | { error: NodeJS.ErrnoException };

function once(url: URL, agent: Agent | false, timeoutMs: number, what: LoadRequest): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers = { ...what.headers, ...(agent === false ? { connection: 'close' } : {}) };
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: what.method, agent, headers, signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        res.resume();
        const retryAfter = res.headers['retry-after'];
        res.once('end', () => resolve({ status: res.statusCode ?? 0, ...(retryAfter === undefined ? {} : { retryAfter }) }));
        res.once('error', (error: NodeJS.ErrnoException) => resolve({ error }));
      },
    );
    req.once('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    req.end(what.body);
  });
}

const GET: LoadRequest = { method: 'GET' };

/** A sample's `error`: the code, except `'hang up'` for a connection closed without an answer (also `ECONNRESET` in Node). */
const errorOf = (error: NodeJS.ErrnoException): string =>
  error.code === 'ECONNRESET' && error.message === 'socket hang up' ? 'hang up' : (error.code ?? error.name);

function count(counts: LoadCounts, outcome: Outcome): void {
  if ('status' in outcome) {
    counts.status[String(outcome.status)] = (counts.status[String(outcome.status)] ?? 0) + 1;
    return;
  }
  const { error } = outcome;
  if (error.name === 'AbortError' || error.code === 'ABORT_ERR') counts.timedOut += 1;
  else if (error.code === 'ECONNREFUSED') counts.refused += 1;
  else if (error.code === 'ECONNRESET' && error.message === 'socket hang up') counts.closedWithoutAnswer += 1;
  else if (error.code === 'ECONNRESET' || error.code === 'EPIPE') counts.reset += 1;
  else counts.errors[error.code ?? error.name] = (counts.errors[error.code ?? error.name] ?? 0) + 1;
}

/**
 * Sends requests (GET unless `options.request` says otherwise) to `url` from `connections` loops until `until` aborts (or `maxDurationMs`), and
 * resolves to what they saw.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * const load = runLoad({ url: `${base}/health`, connections: 8, keepAlive: true }, stop.signal);
 * // … restart something …
 * stop.abort();
 * assert.equal(failures(await load), 0);
 * ```
 */
export async function runLoad(options: LoadOptions, until: AbortSignal): Promise<LoadCounts> {
  const url = new URL(options.url);
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const stopAt = performance.now() + (options.maxDurationMs ?? 120_000);
  const pauseMs = options.refusedPauseMs ?? 20;
  const counts: LoadCounts = { sent: 0, status: {}, reset: 0, closedWithoutAnswer: 0, refused: 0, timedOut: 0, errors: {} };
  const loop = async (index: number) => {
    const agent = options.keepAlive ? new Agent({ keepAlive: true, maxSockets: 1 }) : false;
    try {
      while (!until.aborted && performance.now() < stopAt) {
        counts.sent += 1;
        const at = performance.now();
        const outcome = await once(url, agent, timeoutMs, options.request?.() ?? GET);
        count(counts, outcome);
        options.samples?.push({
          loop: index,
          at,
          ms: performance.now() - at,
          ...('status' in outcome ? outcome : { status: 0, error: errorOf(outcome.error) }),
        });
        if ('error' in outcome && outcome.error.code === 'ECONNREFUSED') await new Promise((r) => setTimeout(r, pauseMs));
      }
    } finally {
      if (agent !== false) agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, i) => loop(i)));
  return counts;
}

/**
 * Splits the resets of one load's samples in two: those that were their loop's last request before it
 * was only refused (the listener closed right after: a connection the kernel had completed into the
 * listen queue but no process had accepted, which Linux resets when the listener closes), and every other
 * reset (a server that dropped a connection it had accepted: a loss of its own).
 *
 * @example
 * ```ts
 * const samples: LoadSample[] = [];
 * const counts = await runLoad({ url, connections: 4, keepAlive: false, samples }, stop.signal);
 * assert.equal(resetsAtListenerClose(samples).other, 0);
 * ```
 */
export function resetsAtListenerClose(samples: readonly LoadSample[]): { atClose: number; other: number } {
  const loops = new Map<number, LoadSample[]>();
  for (const s of samples) loops.set(s.loop, [...(loops.get(s.loop) ?? []), s]);
  let atClose = 0;
  let other = 0;
  for (const sent of loops.values()) {
    const last = sent.findLastIndex((s) => s.error !== 'ECONNREFUSED');
    sent.forEach((s, i) => {
      if (s.error !== 'ECONNRESET' && s.error !== 'EPIPE') return;
      if (i === last && i < sent.length - 1) atClose += 1;
      else other += 1;
    });
  }
  return { atClose, other };
}

/**
 * The mixed load of the cluster tests and `npm run scale-test`: 8 loops on keep-alive connections and 4
 * opening a connection per request, each with its name and counts (and, when asked, its samples).
 *
 * @example
 * ```ts
 * for (const [name, counts] of await runMixedLoad(`${base}/`, stop.signal)) console.log(describeLoad(name, counts));
 * ```
 */
export function runMixedLoad(url: string, until: AbortSignal, samples: { keepAlive?: LoadSample[]; perRequest?: LoadSample[] } = {}): Promise<Array<readonly [string, LoadCounts]>> {
  return Promise.all([
    runLoad({ url, connections: 8, keepAlive: true, ...(samples.keepAlive && { samples: samples.keepAlive }) }, until).then((c) => ['keep-alive (8)', c] as const),
    runLoad({ url, connections: 4, keepAlive: false, ...(samples.perRequest && { samples: samples.perRequest }) }, until).then((c) => ['new connection per request (4)', c] as const),
  ]);
}
