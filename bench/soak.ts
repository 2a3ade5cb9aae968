/**
 * Soak (workload `soak`): many concurrent keep-alive connections against the demo host (`npm start`,
 * in its own process), each connection cycling through the demo's own sample requests: transforms from
 * both sources, aggregates (one with a missing source), a CDS Hooks call and a SOAP NoteReader call.
 * Reports errors (expected: none), requests per second, p50/p99 latency, and the host's RSS at start,
 * peak and end. `benchSoak` runs the same mix at 64 and at 1,000 connections, several times each,
 * alternated, so that a collapse as connections grow shows as a ratio, with its spread.
 *
 * Throughput and latency are those of a measured window on the same connections, without a pause,
 * that opens once the warm-up is over and every connection has had an answer: a count over the whole
 * run charged the 1,000-connection side alone with its start (the host accepts one connection per
 * event-loop iteration, so a busy host takes tens of seconds to accept 1,000, and a closed loop of
 * 1,000 requests worked on at once answers its first ones late) and its end (~1,000 requests unanswered
 * when the load stops). The time until every connection had an answer is reported with each run.
 * Errors, the RSS peak and the answers by kind cover the whole run, warm-up and ramp included.
 *
 * Run one soak: `node --import tsx bench/soak.ts [--connections=1000] [--seconds=60] [--warmup=5]`
 * (needs `npm --prefix bench ci` once, for autocannon); in the bench: `npm run bench -- soak`.
 */
import autocannon from 'autocannon';
import { SUMMARY_EXTENSION_URL } from '../examples/demo/handlers.js';
import { sampleRequests, type SampleKind, type SampleRequest } from '../examples/demo/requests.js';
import { startDemoPeer } from './lib/demo-peer.js';
import { pinSelf } from './lib/processes.js';
import { percentile, summarize, type Summary } from './lib/stats.js';

const DEFAULTS = { connections: 1000, seconds: 60, warmup: 5 };
/** The longest wait for every connection's first answer before the window opens anyway. */
const RAMP_LIMIT_SECONDS = 120;

/** What a good answer of each kind contains, beyond status 200. */
const EXPECTED_BODY: Readonly<Record<SampleKind, string>> = {
  transform: SUMMARY_EXTENSION_URL,
  aggregate: '"type":"searchset"',
  cds: '"cards":[{',
  soap: 'ProcessDocumentResponse',
};

interface KindTally {
  ok: number;
  bad: number;
  statuses: Map<number, number>;
}

export interface SoakFigures {
  connections: number;
  /** Length of the measured window, after {@link warmup}. */
  seconds: number;
  warmup: number;
  /** When the run started (ISO). */
  startedAt: string;
  /** Seconds until every connection had had an answer; undefined when some had none within the ramp limit. */
  rampSeconds: number | undefined;
  /** Over the whole run, warm-up included. */
  answered: number;
  sent: number;
  /** Answers in the measured window per second. */
  rps: number;
  /** Answers per second over the whole run (warm-up and ramp included), for comparison. */
  wholeRunRps: number;
  /** Latency of the answers in the measured window, ms. */
  p50: number;
  p99: number;
  /** connection errors + time-outs + non-2xx + wrong bodies */
  errors: number;
  errorParts: [number, number, number, number];
  probe: string;
  rssStartMB: number;
  rssPeakMB: number;
  rssEndMB: number;
  auditLines: number;
  hostErrorLines: { count: number; first: string[] };
  exitCode: number | null;
  kinds: Map<SampleKind, KindTally>;
}

const MB = 1024 * 1024;

/**
 * One soak: the demo in a fresh process, `connections` keep-alive connections for `warmup` + `seconds`;
 * throughput and latency counted over the last `seconds` only.
 */
export async function soakRun(connections: number, seconds: number, warmup = 0): Promise<SoakFigures> {
  pinSelf('client');
  const demo = await startDemoPeer();
  const kinds = new Map<SampleKind, KindTally>();
  const tally = (kind: SampleKind): KindTally => {
    let t = kinds.get(kind);
    if (t === undefined) kinds.set(kind, (t = { ok: 0, bad: 0, statuses: new Map() }));
    return t;
  };
  const requests = sampleRequests().map((r: SampleRequest) => ({
    method: r.method,
    path: r.path,
    headers: { ...r.headers },
    ...(r.body === undefined ? {} : { body: r.body }),
    onResponse: (status: number, body: string) => {
      const t = tally(r.kind);
      t.statuses.set(status, (t.statuses.get(status) ?? 0) + 1);
      if (status === 200 && body.includes(EXPECTED_BODY[r.kind])) t.ok += 1;
      else t.bad += 1;
    },
  }));
  const rssStart = demo.rssBytes();
  let rssPeak = rssStart;
  const sampler = setInterval(() => void (rssPeak = Math.max(rssPeak, demo.rssBytes())), 250);
  const startedAt = new Date().toISOString();
  // Long enough for the warm-up, the ramp and the window; stopped once the window closes.
  const run = autocannon({ url: demo.origin, connections, duration: warmup + RAMP_LIMIT_SECONDS + seconds, timeout: 30, requests });
  // The window opens once the warm-up is over and every connection has had an answer (the host accepts
  // one connection per event-loop iteration, so a busy host takes many seconds to accept 1,000), or at
  // the ramp limit; it lasts `seconds`.
  const window = { from: Infinity, to: Infinity };
  const answeredBy = new Set<unknown>();
  const latencies: number[] = [];
  let started = NaN;
  let warm = false;
  let rampSeconds: number | undefined;
  const timers: NodeJS.Timeout[] = [];
  // `warm` is set by the warm-up's timer, not read off the clock: the timer's clock may be a moment
  // behind performance.now(), and a check of the elapsed time there left the window shut until the ramp
  // limit (two 64-connection runs of the 10:00 final ran 170 s, their windows 125–170 s into the run).
  const open = (force: boolean): void => {
    if (window.from !== Infinity || !warm || (!force && answeredBy.size < connections)) return;
    window.from = performance.now();
    window.to = window.from + seconds * 1000;
    timers.push(setTimeout(() => run.stop(), seconds * 1000));
  };
  run.once('start', () => {
    started = performance.now();
    const warmUp = (): void => {
      warm = true;
      open(false);
    };
    timers.push(setTimeout(warmUp, warmup * 1000), setTimeout(() => open(true), (warmup + RAMP_LIMIT_SECONDS) * 1000));
  });
  run.on('response', (client: unknown, _status: number, _bytes: number, responseTime: number) => {
    const now = performance.now();
    if (rampSeconds === undefined) {
      answeredBy.add(client);
      if (answeredBy.size === connections) {
        rampSeconds = (now - started) / 1000;
        open(false);
      }
    }
    if (now >= window.from && now < window.to) latencies.push(responseTime);
  });
  const result = await run;
  const runSeconds = (performance.now() - started) / 1000;
  for (const timer of timers) clearTimeout(timer);
  clearInterval(sampler);
  const rssEnd = demo.rssBytes();
  // Does the host recover? One transform once the load has stopped (requests still queued in the host
  // finish first).
  const after = performance.now();
  const probe = await fetch(`${demo.origin}${sampleRequests()[0]?.path}`, { signal: AbortSignal.timeout(120_000) })
    .then(async (res) => `${res.status} after ${Math.round(performance.now() - after)} ms${(await res.text()).includes(SUMMARY_EXTENSION_URL) ? '' : ' (wrong body)'}`)
    .catch((err: Error) => `failed: ${err.message}`);
  const exitCode = await demo.stop();
  const bad = [...kinds.values()].reduce((n, t) => n + t.bad, 0);
  return {
    connections,
    seconds,
    warmup,
    startedAt,
    rampSeconds,
    answered: result.requests.total,
    sent: result.requests.sent,
    rps: latencies.length / seconds,
    wholeRunRps: result.requests.total / runSeconds,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    errors: result.errors + result.timeouts + result.non2xx + bad,
    errorParts: [result.errors, result.timeouts, result.non2xx, bad],
    probe,
    rssStartMB: rssStart / MB,
    rssPeakMB: rssPeak / MB,
    rssEndMB: rssEnd / MB,
    auditLines: demo.auditLines(),
    hostErrorLines: demo.errorLines(),
    exitCode,
    kinds,
  };
}

/** True when a soak saw no error of any kind and the host recovered and exited cleanly. */
export function soakClean(f: SoakFigures): boolean {
  return f.errors === 0 && f.hostErrorLines.count === 0 && f.probe.startsWith('200 ') && !f.probe.includes('wrong') && f.exitCode === 0;
}

/** The soaks of `benchSoak`: every run at each connection count, in the order they ran, and the ratio of each round. */
export interface SoakSeries {
  low: SoakFigures[];
  high: SoakFigures[];
  /** Per round: the 1,000-connection run's throughput over the 64-connection run's next to it. */
  ratios: Summary;
}

/**
 * The demo mix at 64 and at 1,000 connections, `rounds` times (`BENCH_SOAK_RUNS`, default 3), each run
 * `seconds` measured (`BENCH_SOAK_SECONDS`, default 45) after `warmup` seconds (`BENCH_SOAK_WARMUP_SECONDS`,
 * default 5). Each round runs both counts back to back, the first of them alternating (64 first, then
 * 1,000 first, ...), so that a drift of the machine's load over the series weighs on both sides alike.
 */
export async function benchSoak(
  rounds = Number(process.env.BENCH_SOAK_RUNS ?? 3),
  seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 45),
  warmup = Number(process.env.BENCH_SOAK_WARMUP_SECONDS ?? 5),
): Promise<SoakSeries> {
  const low: SoakFigures[] = [];
  const high: SoakFigures[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [64, 1000] : [1000, 64];
    for (const connections of order) {
      const f = await soakRun(connections, seconds, warmup);
      console.log(`soak round ${round + 1}/${rounds}: ${connections} connections, ${Math.round(f.rps)} req/s, p99 ${f.p99} ms, errors ${f.errors}, RSS peak ${f.rssPeakMB.toFixed(1)} MB`);
      (connections === 64 ? low : high).push(f);
    }
  }
  return { low, high, ratios: summarize(high.map((h, i) => h.rps / low[i]!.rps)) };
}

function ramp(f: SoakFigures): string {
  return f.rampSeconds === undefined ? `not within ${RAMP_LIMIT_SECONDS} s (window opened then)` : `${f.rampSeconds.toFixed(1)} s`;
}

/** One row per run, in the order they ran. */
export function soakRunsTable(runs: readonly SoakFigures[]): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const rows = [...runs].sort((a, b) => a.startedAt.localeCompare(b.startedAt)).map((f) => {
    const [conn, timeouts, non2xx, bad] = f.errorParts;
    const good = [...f.kinds].map(([kind, t]) => `${kind} ${n(t.ok)}`).join(', ');
    return `| ${f.startedAt.slice(11, 19)} | ${n(f.connections)} | ${ramp(f)} | ${n(Math.round(f.rps))} (${n(Math.round(f.wholeRunRps))}) | ${n(f.p50)} / ${n(f.p99)} | ${f.errors} (${conn} + ${timeouts} + ${non2xx} + ${bad}) | ${n(f.answered)} / ${n(f.sent)} | ${good} | ${f.rssStartMB.toFixed(1)} / ${f.rssPeakMB.toFixed(1)} / ${f.rssEndMB.toFixed(1)} | ${f.probe} | ${n(f.hostErrorLines.count)} | ${f.exitCode} |`;
  });
  const firstLines = runs.flatMap((f) => f.hostErrorLines.first);
  return `| started (UTC) | connections | every connection answered after | req/s in the window (whole run) | p50 / p99 ms in the window | errors (connection + time-outs + non-2xx + wrong bodies) | answered / sent, whole run | good answers by kind, whole run | host RSS start / peak / end MB | a transform right after the load | host warning/error lines | host exit code |
|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
${firstLines.length === 0 ? '' : `\nfirst host log lines on stderr:\n${firstLines.slice(0, 3).join('\n')}`}`;
}

/** A soak as a Markdown table. */
export function soakTable(f: SoakFigures): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const [conn, timeouts, non2xx, bad] = f.errorParts;
  return `| figure | value |
|---|---|
| connections, warm-up + measured window | ${n(f.connections)}, ${f.warmup} s + ${f.seconds} s |
| every connection answered after | ${ramp(f)} |
| requests answered / sent (whole run) | ${n(f.answered)} / ${n(f.sent)} |
| requests per second (window) | ${n(Math.round(f.rps))} (whole run: ${n(Math.round(f.wholeRunRps))}) |
| latency p50 / p99 (window) | ${f.p50} ms / ${f.p99} ms |
| errors (connection errors + time-outs + non-2xx + wrong bodies) | ${f.errors} (${conn} + ${timeouts} + ${non2xx} + ${bad}) |
| a transform right after the load | ${f.probe} |
| host RSS start / peak / end | ${f.rssStartMB.toFixed(1)} MB / ${f.rssPeakMB.toFixed(1)} MB / ${f.rssEndMB.toFixed(1)} MB |
| audit lines printed by the host | ${n(f.auditLines)} |
| host warning/error log lines | ${n(f.hostErrorLines.count)} |
| host exit code after SIGTERM | ${f.exitCode} |

| kind | good answers | bad answers | statuses |
|---|---|---|---|
${[...f.kinds].map(([kind, t]) => `| ${kind} | ${n(t.ok)} | ${t.bad} | ${[...t.statuses].map(([s, c]) => `${s}×${c}`).join(', ')} |`).join('\n')}
${f.hostErrorLines.first.length === 0 ? '' : `\nfirst host log lines on stderr:\n${f.hostErrorLines.first.join('\n')}`}`;
}

function option(name: keyof typeof DEFAULTS): number {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const value = Number(given ?? DEFAULTS[name]);
  if (!Number.isInteger(value) || value < (name === 'warmup' ? 0 : 1)) throw new RangeError(`--${name} must be an integer of at least ${name === 'warmup' ? 0 : 1}, not ${given}`);
  return value;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const connections = option('connections');
  const seconds = option('seconds');
  const warmup = option('warmup');
  console.log(`soak: ${connections} connections for ${warmup} s + ${seconds} s against the demo`);
  const f = await soakRun(connections, seconds, warmup);
  console.log(`\n${soakTable(f)}`);
  process.exitCode = soakClean(f) ? 0 : 1;
}
