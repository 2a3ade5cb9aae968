/**
 * Workload 7: resident memory after 100,000 gateway reads (in this process) and after 100,000 host
 * requests (the host in its own process, read from /proc), against the start.
 * Run alone: `node --expose-gc --import tsx bench/memory.ts`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { AsyncFHIRGateway } from '../src/index.js';
import { coreFor, startPeer } from './lib/processes.js';

const require = createRequire(import.meta.url);
const MB = 1024 * 1024;

export interface MemoryFigures {
  gateway: { startMB: number; endMB: number; requests: number };
  host: { startMB: number; endMB: number; requests: number };
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

export async function benchMemory(requests = 100_000): Promise<MemoryFigures> {
  const fixed = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url));
  const gw = new AsyncFHIRGateway({ maxConnections: 16 });
  gw.addSource('bench', `fhir://127.0.0.1:${fixed.port}/fhir/R4/`);
  await gw.read('Patient', 'bench-1', 'bench');
  globalThis.gc?.();
  const gwStart = process.memoryUsage().rss / MB;
  let left = requests;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (left-- > 0) await gw.read('Patient', 'bench-1', 'bench');
  }));
  globalThis.gc?.();
  const gwEnd = process.memoryUsage().rss / MB;
  await gw.close();
  await fixed.stop();

  const host = await startPeer(new URL('./servers/host-fhirgate.ts', import.meta.url));
  const hostStart = rssOf(host.child.pid!);
  const core = coreFor('client');
  const args = [require.resolve('autocannon/autocannon.js'), '-j', '-c', '64', '-a', String(requests), `http://127.0.0.1:${host.port}/fhir/transform/Patient/bench-1`];
  const [cmd, argv] = core === undefined ? [process.execPath, args] : ['taskset', ['-c', String(core), process.execPath, ...args]];
  spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 * MB });
  const hostEnd = rssOf(host.child.pid!);
  await host.stop();
  return {
    gateway: { startMB: gwStart, endMB: gwEnd, requests },
    host: { startMB: hostStart, endMB: hostEnd, requests },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await benchMemory();
  console.log(`gateway: ${f.gateway.startMB.toFixed(1)} MB → ${f.gateway.endMB.toFixed(1)} MB after ${f.gateway.requests} reads`);
  console.log(`host: ${f.host.startMB.toFixed(1)} MB → ${f.host.endMB.toFixed(1)} MB after ${f.host.requests} requests`);
}
