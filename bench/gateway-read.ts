/**
 * Workload 1: gateway read throughput, latency and CPU per call at concurrency 1, 16 and 64 against a
 * fixed-response FHIR server in its own process. With `taskset`, the clients (this process) run on core 0
 * and the server on the last core: each client's CPU per call is its process's CPU time over its run
 * divided by its calls (issue 27: fhirgate's within 0.9× of the raw `node:http` Agent's, pinned so).
 * Contenders run alternately, run by run. Run alone: `node --import tsx bench/gateway-read.ts`.
 */
import http from 'node:http';
import { Pool } from 'undici';
import { Client } from 'fhir-kit-client';
import { MedplumClient } from '@medplum/core';
import { AsyncFHIRGateway } from '../src/index.js';
import { closedLoop, type LoopResult } from './lib/closed-loop.js';
import { coreFor, pinSelf, startPeer } from './lib/processes.js';
import { RUNS, summarize, type Summary } from './lib/stats.js';

export interface ReadFigures {
  concurrency: number;
  contenders: Record<string, { rps: Summary; p50: Summary; p99: Summary; cpuUs: Summary; errors: number }>;
  /** True when the client and the server ran pinned to their own cores. */
  pinned: boolean;
}

type Contender = { name: string; call: () => Promise<unknown>; close(): Promise<void> | void };

function contenders(port: number, maxSockets: number): Contender[] {
  const base = `http://127.0.0.1:${port}/fhir/R4`;
  const id = 'bench-1';

  const gw = new AsyncFHIRGateway({ maxConnections: maxSockets, maxKeepaliveConnections: maxSockets, keepaliveExpiry: 30 });
  gw.addSource('bench', `fhir://127.0.0.1:${port}/fhir/R4/`);

  const agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  const raw = () => new Promise((resolve, reject) => {
    http.get(`${base}/Patient/${id}`, { agent, headers: { accept: 'application/fhir+json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    }).on('error', reject);
  });

  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: maxSockets });
  const fkc = new Client({ baseUrl: base });
  const medplum = new MedplumClient({ baseUrl: `http://127.0.0.1:${port}/`, fhirUrlPath: 'fhir/R4', cacheTime: 0, fetch });
  medplum.setAccessToken('static-benchmark-token');

  return [
    { name: 'fhirgate AsyncFHIRGateway', call: () => gw.read('Patient', id, 'bench'), close: () => gw.close() },
    { name: 'raw node:http Agent', call: raw, close: () => agent.destroy() },
    {
      name: 'undici Pool',
      call: async () => (await pool.request({ path: `/fhir/R4/Patient/${id}`, method: 'GET', headers: { accept: 'application/fhir+json' } })).body.json(),
      close: () => pool.close(),
    },
    { name: 'fetch', call: async () => (await fetch(`${base}/Patient/${id}`, { headers: { accept: 'application/fhir+json' } })).json(), close: () => {} },
    { name: 'fhir-kit-client', call: () => fkc.read({ resourceType: 'Patient', id }), close: () => {} },
    { name: 'MedplumClient 4', call: () => medplum.readResource('Patient', id), close: () => {} },
  ];
}

export async function benchGatewayRead(seconds = Number(process.env.BENCH_SECONDS ?? 1.5)): Promise<ReadFigures[]> {
  pinSelf('client');
  const server = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url));
  const figures: ReadFigures[] = [];
  try {
    for (const concurrency of [1, 16, 64]) {
      const all = contenders(server.port, Math.max(concurrency, 1));
      const results = new Map<string, LoopResult[]>(all.map((c) => [c.name, []]));
      for (const c of all) await closedLoop(c.call, concurrency, 0.3); // warm-up
      for (let run = 0; run < RUNS; run++) {
        const order = run % 2 === 0 ? all : [...all].reverse();
        for (const c of order) results.get(c.name)!.push(await closedLoop(c.call, concurrency, seconds));
      }
      for (const c of all) await c.close();
      const entry: ReadFigures = { concurrency, contenders: {}, pinned: coreFor('client') !== undefined };
      for (const [name, runs] of results) {
        entry.contenders[name] = {
          rps: summarize(runs.map((r) => r.rps)),
          p50: summarize(runs.map((r) => r.p50)),
          p99: summarize(runs.map((r) => r.p99)),
          cpuUs: summarize(runs.map((r) => r.cpuUs)),
          errors: runs.reduce((n, r) => n + r.errors, 0),
        };
      }
      figures.push(entry);
    }
  } finally {
    await server.stop();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchGatewayRead();
  for (const f of figures) {
    const raw = f.contenders['raw node:http Agent']!;
    console.log(`\nconcurrency ${f.concurrency}${f.pinned ? '' : ' (not pinned)'}`);
    for (const [name, c] of Object.entries(f.contenders)) {
      console.log(`  ${name.padEnd(28)} ${c.rps.median.toFixed(0).padStart(7)} req/s  ${(c.rps.median / raw.rps.median).toFixed(2)}x raw  CPU ${c.cpuUs.median.toFixed(1)} µs/call (${(raw.cpuUs.median / c.cpuUs.median).toFixed(2)}x raw)  p50 ${c.p50.median.toFixed(2)} ms  p99 ${c.p99.median.toFixed(2)} ms  errors ${c.errors}`);
    }
  }
}
