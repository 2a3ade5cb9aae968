/**
 * Workload 2: sequential read latency of the synchronous FHIRGateway (worker thread + Atomics.wait
 * bridge) against AsyncFHIRGateway's, on the fixed-response server in its own process.
 * Run alone: `node --import tsx bench/sync-latency.ts`.
 */
import { AsyncFHIRGateway, FHIRGateway } from '../src/index.js';
import { pinSelf, startPeer } from './lib/processes.js';
import { percentile, RUNS, summarize, type Summary } from './lib/stats.js';

export interface SyncFigures {
  asyncP50: Summary;
  syncP50: Summary;
  ratio: Summary;
}

export async function benchSyncLatency(calls = Number(process.env.BENCH_CALLS ?? 2000)): Promise<SyncFigures> {
  pinSelf('client');
  const server = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url));
  const cs = `fhir://127.0.0.1:${server.port}/fhir/R4/`;
  const asyncGw = new AsyncFHIRGateway();
  asyncGw.addSource('bench', cs);
  const syncGw = new FHIRGateway();
  syncGw.addSource('bench', cs);
  const asyncRuns: number[] = [];
  const syncRuns: number[] = [];
  try {
    for (let i = 0; i < 200; i++) {
      await asyncGw.read('Patient', 'bench-1', 'bench');
      syncGw.read('Patient', 'bench-1', 'bench');
    }
    for (let run = 0; run < RUNS; run++) {
      const a: number[] = [];
      const s: number[] = [];
      for (let i = 0; i < calls; i++) {
        let t0 = performance.now();
        await asyncGw.read('Patient', 'bench-1', 'bench');
        a.push(performance.now() - t0);
        t0 = performance.now();
        syncGw.read('Patient', 'bench-1', 'bench');
        s.push(performance.now() - t0);
      }
      asyncRuns.push(percentile(a, 50));
      syncRuns.push(percentile(s, 50));
    }
  } finally {
    syncGw.close();
    await asyncGw.close();
    await server.stop();
  }
  return { asyncP50: summarize(asyncRuns), syncP50: summarize(syncRuns), ratio: summarize(syncRuns.map((s, i) => s / asyncRuns[i]!)) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await benchSyncLatency();
  console.log(`async p50 ${f.asyncP50.median.toFixed(3)} ms, sync p50 ${f.syncP50.median.toFixed(3)} ms, ratio ${f.ratio.median.toFixed(2)}x`);
}
