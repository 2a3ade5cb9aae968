/**
 * The `$everything` rows of workload `facade`: `GET /fhir/all/Patient/ehr.e-1/$everything` over two
 * sources of 50 resources each (servers/everything-upstream.ts, each answering `$everything` itself),
 * the patient's resolution cached (`identity.ttlSeconds` 300) and not (0: a read of the patient and a
 * search by identifier in the other source on every request). Throughput and server CPU per request at
 * 16 connections, p50 at 1 connection, on each Node of `benchNodes()`; the direct row is one source's
 * own `$everything` on the upstream. No feature-equal Fastify build of `$everything` exists yet: these
 * rows are fhirgate's alone.
 */
import { BENCH_KEY, latencyClient, load, type Measured } from './facade.js';
import { benchNodes, type BenchNode } from './lib/nodes.js';
import { startPeer } from './lib/processes.js';
import { RUNS, summarize, type Summary } from './lib/stats.js';
import { EVERYTHING_BASES, EVERYTHING_PATH } from './servers/everything-fixture.js';

/** The rows' contenders: the facade with the resolution cached and not, and the upstream itself. */
export const EVERYTHING_CONTENDERS = { cached: 'fhirgate facade, resolution cached', uncached: 'fhirgate facade, resolution on every request', direct: 'direct (one source\'s own $everything)' } as const;

/** One contender's figures on one Node. */
export interface EverythingRow {
  contender: string;
  node: string;
  rps: Summary;
  cpu: Summary;
  p50: Summary;
  latencyP50: Summary;
  errors: number;
}

/** Measures the rows: per run, per Node and contender alternated, one server process each. */
export async function benchEverything(connections = 16, seconds = Number(process.env.BENCH_SECONDS ?? 3), latencyRequests = Number(process.env.BENCH_LATENCY_REQUESTS ?? 1000), nodes: BenchNode[] = benchNodes()): Promise<EverythingRow[]> {
  const upstream = await startPeer(new URL('./servers/everything-upstream.ts', import.meta.url), [], {}, [], 'client');
  const runs = new Map<string, { m: Measured; latency: number }[]>();
  const measure = (url: string, pid: number | undefined, contender: string, node: string) => {
    const m = load(url, connections, seconds, pid);
    const l = latencyClient(url, latencyRequests);
    const key = JSON.stringify([contender, node]);
    runs.set(key, [...(runs.get(key) ?? []), { m: { ...m, errors: m.errors + l.errors }, latency: l.p50 }]);
  };
  const [base, id] = EVERYTHING_BASES.ehr;
  try {
    for (let run = 0; run < RUNS; run++) {
      measure(`http://127.0.0.1:${upstream.port}${base}/Patient/${id}/%24everything`, undefined, EVERYTHING_CONTENDERS.direct, `${process.version} (upstream)`);
      for (const node of run % 2 === 0 ? nodes : [...nodes].reverse()) {
        for (const [contender, ttl] of run % 2 === 0 ? ([[EVERYTHING_CONTENDERS.cached, '300'], [EVERYTHING_CONTENDERS.uncached, '0']] as const) : ([[EVERYTHING_CONTENDERS.uncached, '0'], [EVERYTHING_CONTENDERS.cached, '300']] as const)) {
          const peer = await startPeer(new URL('./servers/facade-everything.ts', import.meta.url), [String(upstream.port), BENCH_KEY, ttl], {}, [], 'server', node.path);
          try {
            measure(`http://127.0.0.1:${peer.port}${EVERYTHING_PATH}`, peer.child.pid, contender, node.version);
          } finally {
            await peer.stop();
          }
        }
      }
    }
  } finally {
    await upstream.stop();
  }
  return [...runs].map(([key, rs]) => {
    const [contender, node] = JSON.parse(key) as [string, string];
    const s = (f: (r: { m: Measured; latency: number }) => number) => summarize(rs.map(f));
    return { contender, node, rps: s((r) => r.m.rps), cpu: s((r) => r.m.cpu), p50: s((r) => r.m.p50), latencyP50: s((r) => r.latency), errors: rs.reduce((n, r) => n + r.m.errors, 0) };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchEverything()) console.log(`${r.contender.padEnd(48)} ${r.node.padEnd(22)} ${r.rps.median.toFixed(0).padStart(6)} req/s  CPU ${r.cpu.median.toFixed(0)} µs/req  p50 at 1 connection ${r.latencyP50.median.toFixed(0)} µs  errors ${r.errors}`);
}
