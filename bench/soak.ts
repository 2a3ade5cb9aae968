/**
 * Soak (workload `soak`): many concurrent keep-alive connections against the demo host (`npm start`,
 * in its own process), each connection cycling through the demo's own sample requests: transforms from
 * both sources, aggregates (one with a missing source), a CDS Hooks call and a SOAP NoteReader call.
 * Reports errors (expected: none), requests per second, p50/p99 latency, and the host's RSS at start,
 * peak and end. `benchSoak` runs the same mix at 64 and at 1,000 connections, so that a collapse as
 * connections grow shows as a ratio.
 *
 * Run one soak: `node --import tsx bench/soak.ts [--connections=1000] [--seconds=60]`
 * (needs `npm --prefix bench ci` once, for autocannon); in the bench: `npm run bench -- soak`.
 */
import autocannon from 'autocannon';
import { SUMMARY_EXTENSION_URL } from '../examples/demo/handlers.js';
import { sampleRequests, type SampleKind, type SampleRequest } from '../examples/demo/requests.js';
import { startDemoPeer } from './lib/demo-peer.js';
import { pinSelf } from './lib/processes.js';

const DEFAULTS = { connections: 1000, seconds: 60 };

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
  seconds: number;
  answered: number;
  sent: number;
  rps: number;
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

/** One soak: the demo in a fresh process, `connections` keep-alive connections for `seconds`. */
export async function soakRun(connections: number, seconds: number): Promise<SoakFigures> {
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
  const result = await autocannon({ url: demo.origin, connections, duration: seconds, timeout: 30, requests });
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
    answered: result.requests.total,
    sent: result.requests.sent,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
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

/** The demo mix at 64 and at 1,000 connections (`BENCH_SOAK_SECONDS` each, default 20). */
export async function benchSoak(seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 20)): Promise<SoakFigures[]> {
  const figures: SoakFigures[] = [];
  for (const connections of [64, 1000]) figures.push(await soakRun(connections, seconds));
  return figures;
}

/** A soak as a Markdown table. */
export function soakTable(f: SoakFigures): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const [conn, timeouts, non2xx, bad] = f.errorParts;
  return `| figure | value |
|---|---|
| connections, duration | ${n(f.connections)}, ${f.seconds} s |
| requests answered / sent | ${n(f.answered)} / ${n(f.sent)} |
| requests per second (mean) | ${n(Math.round(f.rps))} |
| latency p50 / p99 | ${f.p50} ms / ${f.p99} ms |
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
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer, not ${given}`);
  return value;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const connections = option('connections');
  const seconds = option('seconds');
  console.log(`soak: ${connections} connections for ${seconds} s against the demo`);
  const f = await soakRun(connections, seconds);
  console.log(`\n${soakTable(f)}`);
  process.exitCode = soakClean(f) ? 0 : 1;
}
