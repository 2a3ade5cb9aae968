/**
 * Workload `facade`: a read through fhirgate's FHIR facade (caller policy and AuditEvent on) beside
 * Fastify 5 + `@fastify/reply-from` and a direct read of the fixed-response upstream, at 16 and 64
 * connections (autocannon), and the added latency at 1 connection with microsecond resolution (one
 * request at a time from a keep-alive client timing each with `process.hrtime`). The upstream and the
 * clients run on the client's core; each proxy in its own process on the server's.
 * Targets (issue 26): facade ≥ 0.8× reply-from's throughput, and < 0.3 ms added p50 over the direct read.
 * Run alone: `node --import tsx bench/facade.ts`.
 */
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { autocannon } from './host.js';
import { coreFor, startPeer } from './lib/processes.js';
import { percentile, RUNS, summarize, type Summary } from './lib/stats.js';

/** The bench caller's API key (not a secret: it guards a fixed Patient on loopback). */
const BENCH_KEY = 'bench-caller-key-0123456789';

/** One contender's figures at one connection count. */
export interface FacadeFigures {
  connections: number;
  contenders: Record<string, { rps: Summary; p50: Summary; p99: Summary; errors: number }>;
}

/** One contender's latency at 1 connection, in microseconds. */
export interface FacadeLatency {
  requests: number;
  contenders: Record<string, { p50: Summary; p99: Summary; errors: number }>;
}

const SERVERS: Record<string, string | undefined> = {
  'direct read': undefined,
  '@fastify/reply-from': 'facade-reply-from.ts',
  'fhirgate facade (policy + audit)': 'facade-fhirgate.ts',
};

/** Every contender in its own process, alternated run by run; `measure` runs against each one's URL. */
async function eachContender<T>(upstreamPort: number, measure: (url: string) => T): Promise<Map<string, T[]>> {
  const runs = new Map<string, T[]>();
  for (let run = 0; run < RUNS; run++) {
    const names = Object.keys(SERVERS);
    for (const name of run % 2 === 0 ? names : names.reverse()) {
      const script = SERVERS[name];
      const peer = script === undefined ? undefined : await startPeer(new URL(`./servers/${script}`, import.meta.url), [String(upstreamPort), BENCH_KEY]);
      const url = peer === undefined ? `http://127.0.0.1:${upstreamPort}/fhir/R4/Patient/bench-1` : `http://127.0.0.1:${peer.port}/fhir/ehr/Patient/bench-1`;
      try {
        runs.set(name, [...(runs.get(name) ?? []), measure(url)]);
      } finally {
        await peer?.stop();
      }
    }
  }
  return runs;
}

/** Every contender under autocannon, alternated run by run, at each connection count. */
export async function benchFacade(connectionCounts = [16, 64], seconds = Number(process.env.BENCH_SECONDS ?? 3)): Promise<FacadeFigures[]> {
  const upstream = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url), [], {}, [], 'client');
  const figures: FacadeFigures[] = [];
  try {
    for (const connections of connectionCounts) {
      const runs = await eachContender(upstream.port, (url) => {
        autocannon(url, connections, 1, { 'x-api-key': BENCH_KEY });
        return autocannon(url, connections, seconds, { 'x-api-key': BENCH_KEY });
      });
      const contenders: FacadeFigures['contenders'] = {};
      for (const [name, rs] of runs) contenders[name] = { rps: summarize(rs.map((r) => r.rps)), p50: summarize(rs.map((r) => r.p50)), p99: summarize(rs.map((r) => r.p99)), errors: rs.reduce((n, r) => n + r.errors, 0) };
      figures.push({ connections, contenders });
    }
  } finally {
    await upstream.stop();
  }
  return figures;
}

/**
 * The latency of each contender at 1 connection, in µs: `requests` timed one after the other (after
 * as many again to warm up) by a client in its own process on the client's core.
 */
export async function benchFacadeLatency(requests = Number(process.env.BENCH_LATENCY_REQUESTS ?? 4000)): Promise<FacadeLatency> {
  const upstream = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url), [], {}, [], 'client');
  try {
    const runs = await eachContender(upstream.port, (url) => latencyClient(url, requests));
    const contenders: FacadeLatency['contenders'] = {};
    for (const [name, rs] of runs) contenders[name] = { p50: summarize(rs.map((r) => r.p50)), p99: summarize(rs.map((r) => r.p99)), errors: rs.reduce((n, r) => n + r.errors, 0) };
    return { requests, contenders };
  } finally {
    await upstream.stop();
  }
}

/** Runs this file as the latency client (`--latency-client <url> <requests>`) in its own process. */
function latencyClient(url: string, requests: number): { p50: number; p99: number; errors: number } {
  const core = coreFor('client');
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--latency-client', url, String(requests)];
  const [cmd, argv] = core === undefined ? [process.execPath, args] : ['taskset', ['-c', String(core), process.execPath, ...args]];
  const out = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`latency client failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as { p50: number; p99: number; errors: number };
}

/** The client: one keep-alive connection, one request at a time, each timed; prints p50/p99 in µs. */
async function runLatencyClient(url: string, requests: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let errors = 0;
  const once = () => new Promise<number>((resolve) => {
    const started = process.hrtime.bigint();
    const req = request(url, { agent, headers: { 'x-api-key': BENCH_KEY } }, (res) => {
      if (res.statusCode !== 200) errors++;
      res.on('data', () => {});
      res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1000));
    });
    req.on('error', () => {
      errors++;
      resolve(NaN);
    });
    req.end();
  });
  for (let i = 0; i < requests; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push(await once());
  agent.destroy();
  const timed = times.filter((t) => !Number.isNaN(t));
  process.stdout.write(JSON.stringify({ p50: percentile(timed, 50), p99: percentile(timed, 99), errors }));
}

if (process.argv[2] === '--latency-client') {
  await runLatencyClient(process.argv[3]!, Number(process.argv[4]));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await benchFacade()) {
    console.log(`\n${f.connections} connections`);
    for (const [name, x] of Object.entries(f.contenders)) console.log(`  ${name.padEnd(34)} ${x.rps.median.toFixed(0).padStart(7)} req/s  p50 ${x.p50.median} ms  p99 ${x.p99.median} ms  errors ${x.errors}`);
  }
  const l = await benchFacadeLatency();
  console.log(`\n1 connection, ${l.requests} requests one at a time (µs)`);
  for (const [name, x] of Object.entries(l.contenders)) console.log(`  ${name.padEnd(34)} p50 ${x.p50.median.toFixed(0)} µs  p99 ${x.p99.median.toFixed(0)} µs  errors ${x.errors}`);
}
