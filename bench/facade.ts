/**
 * Workload `facade`: a read through fhirgate's FHIR facade (caller policy and AuditEvent on) beside
 * Fastify 5 + `@fastify/reply-from` and a direct read of the fixed-response upstream, at 16 and 64
 * connections. The upstream runs on the client's core; each proxy in its own process on the server's.
 * Targets (issue 26): facade ≥ 0.8× reply-from's throughput, and < 0.3 ms added p50 over the direct read.
 * Run alone: `node --import tsx bench/facade.ts`.
 */
import { autocannon } from './host.js';
import { startPeer } from './lib/processes.js';
import { RUNS, summarize, type Summary } from './lib/stats.js';

/** The bench caller's API key (not a secret: it guards a fixed Patient on loopback). */
const BENCH_KEY = 'bench-caller-key-0123456789';

/** One contender's figures at one connection count. */
export interface FacadeFigures {
  connections: number;
  contenders: Record<string, { rps: Summary; p50: Summary; p99: Summary; errors: number }>;
}

const SERVERS: Record<string, string | undefined> = {
  'direct read': undefined,
  '@fastify/reply-from': 'facade-reply-from.ts',
  'fhirgate facade (policy + audit)': 'facade-fhirgate.ts',
};

/** Every contender, alternated run by run, at each connection count. */
export async function benchFacade(connectionCounts = [16, 64], seconds = Number(process.env.BENCH_SECONDS ?? 3)): Promise<FacadeFigures[]> {
  const upstream = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url), [], {}, [], 'client');
  const figures: FacadeFigures[] = [];
  try {
    for (const connections of connectionCounts) {
      const runs = new Map<string, { rps: number; p50: number; p99: number; errors: number }[]>();
      for (let run = 0; run < RUNS; run++) {
        const names = Object.keys(SERVERS);
        for (const name of run % 2 === 0 ? names : names.reverse()) {
          const script = SERVERS[name];
          const peer = script === undefined ? undefined : await startPeer(new URL(`./servers/${script}`, import.meta.url), [String(upstream.port), BENCH_KEY]);
          const url = peer === undefined ? `http://127.0.0.1:${upstream.port}/fhir/R4/Patient/bench-1` : `http://127.0.0.1:${peer.port}/fhir/ehr/Patient/bench-1`;
          try {
            autocannon(url, connections, 1, { 'x-api-key': BENCH_KEY });
            runs.set(name, [...(runs.get(name) ?? []), autocannon(url, connections, seconds, { 'x-api-key': BENCH_KEY })]);
          } finally {
            await peer?.stop();
          }
        }
      }
      const contenders: FacadeFigures['contenders'] = {};
      for (const [name, rs] of runs) contenders[name] = { rps: summarize(rs.map((r) => r.rps)), p50: summarize(rs.map((r) => r.p50)), p99: summarize(rs.map((r) => r.p99)), errors: rs.reduce((n, r) => n + r.errors, 0) };
      figures.push({ connections, contenders });
    }
  } finally {
    await upstream.stop();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await benchFacade()) {
    const c = f.contenders;
    console.log(`\n${f.connections} connections`);
    for (const [name, x] of Object.entries(c)) console.log(`  ${name.padEnd(34)} ${x.rps.median.toFixed(0).padStart(7)} req/s  p50 ${x.p50.median} ms  p99 ${x.p99.median} ms  errors ${x.errors}`);
  }
}
