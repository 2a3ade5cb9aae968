/**
 * A closed-loop load: `concurrency` workers each send one request, wait for it, send the next, until the
 * time is up. Reports requests per second, latency percentiles (ms) and this process's CPU time per
 * request (µs, `process.cpuUsage()`: every thread of the process, V8's GC and compiler threads included).
 */
import { percentile } from './stats.js';

export interface LoopResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time of this process per completed request, µs. */
  cpuUs: number;
}

export async function closedLoop(call: () => Promise<unknown>, concurrency: number, seconds: number): Promise<LoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await call();
        latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (performance.now() - t0) / 1000;
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, cpuUs: (cpu.user + cpu.system) / latencies.length };
}
