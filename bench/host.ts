/**
 * Workload 4: the transform endpoint (handler returns a cached resource) on fhirgate's host against a
 * bare node:http server, Fastify 5 and Express 5 doing the same, at 16 and 256 connections. Each server
 * runs in its own process on one core; autocannon runs in its own process on the other.
 * `host-features` runs fhirgate's host and a Fastify 5 app with the same per-request features on;
 * `e2e-transform` has each server read from a fixed-response upstream (on the client's core) first.
 * Every server runs on each Node of `benchNodes()` (the load generator and the upstream on the running one).
 * Run alone: `node --import tsx bench/host.ts`.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpuSeconds } from './lib/cpu.js';
import { benchNodes, type BenchNode } from './lib/nodes.js';
import { coreFor, startPeer } from './lib/processes.js';
import { RUNS, summarize, type Summary } from './lib/stats.js';

const require = createRequire(import.meta.url);
const autocannonBin = require.resolve('autocannon/autocannon.js');

export interface HostFigures {
  connections: number;
  /** The Node version every server of this figure ran on. */
  node: string;
  /**
   * Per contender; `cpu` is the server process's CPU (every thread, user + system) per answered request in
   * µs, and `busy` that CPU over the run's duration (1 = its whole core): a server below ~0.9 was not what
   * bounded its throughput (the load generator, on the other core, was). Both NaN without `/proc`.
   */
  contenders: Record<string, { rps: Summary; p99: Summary; errors: number; cpu: Summary; busy: Summary }>;
}

/** Contender name → server script under bench/servers/. */
export type Servers = Record<string, string>;

/** The name of the host's row with the OpenTelemetry SDK as its tracer (issue 37: ≤ 5% more CPU per request). */
export const TRACED_HOST = 'fhirgate host, tracing on';

export const HOST_SERVERS: Servers = {
  'fhirgate host': 'host-fhirgate.ts',
  [TRACED_HOST]: 'host-fhirgate-traced.ts',
  'bare node:http': 'host-bare.ts',
  'Fastify 5': 'host-fastify.ts',
  'Express 5': 'host-express.ts',
};

/**
 * Both with a request id, the security header, an access-log line at `info` to a file, a request counter
 * and the W3C trace context (a `traceparent` continued or a trace started, `X-Trace-ID`, `trace_id` in the
 * access line, the trace in an `AsyncLocalStorage` scope for the handler and what it starts). The third
 * row is the Fastify app without the trace context, the anchor before issue 37 (issue 38 item 2).
 */
export const FEATURE_SERVERS: Servers = {
  'fhirgate host': 'host-fhirgate-features.ts',
  'Fastify 5, same features': 'host-fastify-features.ts',
  'Fastify 5, features without trace context': 'host-fastify-features-untraced.ts',
};

/**
 * All read the Patient from the upstream and add an extension, features on. The third is a diagnostic:
 * fhirgate's host with the upstream call on undici, which separates the host's cost from the client's.
 */
export const E2E_SERVERS: Servers = {
  'fhirgate host + gateway': 'e2e-fhirgate.ts',
  'Fastify 5 + undici Pool': 'e2e-fastify-undici.ts',
  'fhirgate host + undici Pool (diagnostic)': 'e2e-fhirgate-undici.ts',
};

/**
 * Seconds of load each fresh server gets before its first measured window (`BENCH_WARMUP`, default 5). V8
 * compiles a server's hot paths in its first seconds under load, its compiler threads on the server's own
 * core: on Node 20 (no Maglev) the facade's read reached its steady CPU per request only after 4–5 s of
 * load (bench/warmup.ts, issue 38), so a 1 s warm-up measured the compiler in each server's first case.
 */
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 5);

/**
 * autocannon (in its own process, on the client's core) against `url` for `seconds`: requests per second,
 * p50 and p99 latency in ms, errors and non-2xx answers. `headers` are sent with every request.
 */
export function autocannon(url: string, connections: number, seconds: number, headers: Record<string, string> = {}): { rps: number; p50: number; p99: number; errors: number; requests: number; seconds: number } {
  const core = coreFor('client');
  const args = [autocannonBin, '-j', '-c', String(connections), '-d', String(seconds), ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]), url];
  const [cmd, argv] = core === undefined ? [process.execPath, args] : ['taskset', ['-c', String(core), process.execPath, ...args]];
  const out = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(out.stdout) as { requests: { average: number; total: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number; duration: number };
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx, requests: result.requests.total, seconds: result.duration };
}

interface Run {
  rps: number;
  p99: number;
  errors: number;
  /** The server's CPU per answered request (µs) and over the run's duration (1 = a core). */
  cpu: number;
  busy: number;
}

function load(port: number, connections: number, seconds: number, pid?: number): Run {
  const before = cpuSeconds(pid);
  const r = autocannon(`http://127.0.0.1:${port}/fhir/transform/Patient/bench-1`, connections, seconds);
  const used = cpuSeconds(pid) - before;
  return { rps: r.rps, p99: r.p99, errors: r.errors, cpu: (used * 1e6) / r.requests, busy: used / r.seconds };
}

/**
 * Each server of `servers` on each Node in turn (both alternated run by run) under autocannon at each
 * connection count; with `upstream`, that script runs first on the client's core and every server gets
 * its port. One figure per connection count and Node.
 */
export async function benchHost(servers: Servers = HOST_SERVERS, connectionCounts = [16, 256], upstream?: string, seconds = Number(process.env.BENCH_SECONDS ?? 3), nodes: BenchNode[] = benchNodes()): Promise<HostFigures[]> {
  const up = upstream === undefined ? undefined : await startPeer(new URL(`./servers/${upstream}`, import.meta.url), [], {}, [], 'client');
  const figures: HostFigures[] = [];
  try {
    for (const connections of connectionCounts) figures.push(...(await atConnections(servers, connections, up === undefined ? [] : [String(up.port)], seconds, nodes)));
  } finally {
    await up?.stop();
  }
  return figures;
}

async function atConnections(servers: Servers, connections: number, args: string[], seconds: number, nodes: BenchNode[]): Promise<HostFigures[]> {
  const runs = new Map<string, Map<string, Run[]>>(nodes.map((n) => [n.version, new Map()]));
  for (let run = 0; run < RUNS; run++) {
    const names = Object.keys(servers);
    for (const node of run % 2 === 0 ? nodes : [...nodes].reverse()) {
      for (const name of run % 2 === 0 ? names : [...names].reverse()) {
        const peer = await startPeer(new URL(`./servers/${servers[name]}`, import.meta.url), args, {}, [], 'server', node.path);
        try {
          load(peer.port, connections, WARMUP_SECONDS);
          const r = load(peer.port, connections, seconds, peer.child.pid); // taskset execs node: the same pid
          const byName = runs.get(node.version)!;
          byName.set(name, [...(byName.get(name) ?? []), r]);
        } finally {
          await peer.stop();
        }
      }
    }
  }
  return nodes.map((node) => {
    const entry: HostFigures = { connections, node: node.version, contenders: {} };
    for (const [name, rs] of runs.get(node.version)!) {
      entry.contenders[name] = {
        rps: summarize(rs.map((r) => r.rps)),
        p99: summarize(rs.map((r) => r.p99)),
        errors: rs.reduce((n, r) => n + r.errors, 0),
        cpu: summarize(rs.map((r) => r.cpu)),
        busy: summarize(rs.map((r) => r.busy)),
      };
    }
    return entry;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await benchHost()) {
    const bare = f.contenders['bare node:http']!.rps.median;
    console.log(`\n${f.connections} connections, node ${f.node}`);
    for (const [name, c] of Object.entries(f.contenders)) {
      console.log(`  ${name.padEnd(16)} ${c.rps.median.toFixed(0).padStart(7)} req/s  ${(c.rps.median / bare).toFixed(2)}x bare  p99 ${c.p99.median} ms  errors ${c.errors}`);
    }
  }
}
