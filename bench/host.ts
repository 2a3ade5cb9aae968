/**
 * Workload 4: the transform endpoint (handler returns a cached resource) on fhirgate's host against a
 * bare node:http server, Fastify 5 and Express 5 doing the same, at 16 and 256 connections. Each server
 * runs in its own process on one core; autocannon runs in its own process on the other.
 * Run alone: `node --import tsx bench/host.ts`.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { coreFor, startPeer } from './lib/processes.js';
import { RUNS, summarize, type Summary } from './lib/stats.js';

const require = createRequire(import.meta.url);
const autocannonBin = require.resolve('autocannon/autocannon.js');

export interface HostFigures {
  connections: number;
  contenders: Record<string, { rps: Summary; p99: Summary; errors: number }>;
}

const SERVERS = {
  'fhirgate host': 'host-fhirgate.ts',
  'bare node:http': 'host-bare.ts',
  'Fastify 5': 'host-fastify.ts',
  'Express 5': 'host-express.ts',
} as const;

function load(port: number, connections: number, seconds: number): { rps: number; p99: number; errors: number } {
  const core = coreFor('client');
  const args = [autocannonBin, '-j', '-c', String(connections), '-d', String(seconds), `http://127.0.0.1:${port}/fhir/transform/Patient/bench-1`];
  const [cmd, argv] = core === undefined ? [process.execPath, args] : ['taskset', ['-c', String(core), process.execPath, ...args]];
  const out = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(out.stdout) as { requests: { average: number }; latency: { p99: number }; errors: number; non2xx: number };
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

export async function benchHost(seconds = Number(process.env.BENCH_SECONDS ?? 3)): Promise<HostFigures[]> {
  const figures: HostFigures[] = [];
  for (const connections of [16, 256]) {
    const runs = new Map<string, Array<{ rps: number; p99: number; errors: number }>>();
    for (let run = 0; run < RUNS; run++) {
      const names = Object.keys(SERVERS) as Array<keyof typeof SERVERS>;
      for (const name of run % 2 === 0 ? names : names.reverse()) {
        const peer = await startPeer(new URL(`./servers/${SERVERS[name]}`, import.meta.url));
        try {
          load(peer.port, connections, 1); // warm-up
          const r = load(peer.port, connections, seconds);
          runs.set(name, [...(runs.get(name) ?? []), r]);
        } finally {
          await peer.stop();
        }
      }
    }
    const entry: HostFigures = { connections, contenders: {} };
    for (const [name, rs] of runs) {
      entry.contenders[name] = { rps: summarize(rs.map((r) => r.rps)), p99: summarize(rs.map((r) => r.p99)), errors: rs.reduce((n, r) => n + r.errors, 0) };
    }
    figures.push(entry);
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await benchHost()) {
    const bare = f.contenders['bare node:http']!.rps.median;
    console.log(`\n${f.connections} connections`);
    for (const [name, c] of Object.entries(f.contenders)) {
      console.log(`  ${name.padEnd(16)} ${c.rps.median.toFixed(0).padStart(7)} req/s  ${(c.rps.median / bare).toFixed(2)}x bare  p99 ${c.p99.median} ms  errors ${c.errors}`);
    }
  }
}
