/**
 * Workload `memory`: resident memory and V8 heap after 100,000 gateway reads (in this process) and after
 * 100,000 host requests (the host in its own process, RSS read from /proc), each against the start, both
 * measured after a forced garbage collection. RSS that grows while the heap after GC does not is memory
 * V8 and malloc keep for reuse, not a leak.
 * Run alone: `node --expose-gc --import tsx bench/memory.ts`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { AsyncFHIRGateway } from '../src/index.js';
import { coreFor, startPeer, type Peer } from './lib/processes.js';

const require = createRequire(import.meta.url);
const MB = 1024 * 1024;

export interface MemoryLine {
  requests: number;
  startMB: number;
  endMB: number;
  heapStartMB: number;
  heapEndMB: number;
}

export interface MemoryFigures {
  gateway: MemoryLine;
  host: MemoryLine;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / MB * 1024;
}

function gcHere(): { rss: number; heap: number } {
  if (globalThis.gc === undefined) throw new Error('run with node --expose-gc (npm run bench does)');
  globalThis.gc();
  const m = process.memoryUsage();
  return { rss: m.rss / MB, heap: m.heapUsed / MB };
}

/** Asks a bench server (started with --expose-gc) to collect; resolves with its RSS and heap in MB. */
function gcPeer(peer: Peer): Promise<{ rss: number; heap: number }> {
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      const heap = /gc done (\d+)/.exec(chunk.toString())?.[1];
      if (heap === undefined) return;
      peer.child.stdout!.off('data', onData);
      resolve({ rss: rssOf(peer.child.pid!), heap: Number(heap) / MB });
    };
    peer.child.stdout!.on('data', onData);
    peer.child.kill('SIGUSR2');
  });
}

export async function benchMemory(requests = 100_000): Promise<MemoryFigures> {
  const fixed = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url));
  const gw = new AsyncFHIRGateway({ maxConnections: 16 });
  gw.addSource('bench', `fhir://127.0.0.1:${fixed.port}/fhir/R4/`);
  for (let i = 0; i < 1_000; i++) await gw.read('Patient', 'bench-1', 'bench'); // compiles the code paths: not growth
  const gwStart = gcHere();
  let left = requests;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (left-- > 0) await gw.read('Patient', 'bench-1', 'bench');
  }));
  const gwEnd = gcHere();
  await gw.close();
  await fixed.stop();

  const host = await startPeer(new URL('./servers/host-fhirgate.ts', import.meta.url), [], {}, ['--expose-gc']);
  const url = `http://127.0.0.1:${host.port}/fhir/transform/Patient/bench-1`;
  const core = coreFor('client');
  const load = (count: number) => {
    const args = [require.resolve('autocannon/autocannon.js'), '-j', '-c', '64', '-a', String(count), url];
    const [cmd, argv] = core === undefined ? [process.execPath, args] : ['taskset', ['-c', String(core), process.execPath, ...args]];
    spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 * MB });
  };
  load(1_000); // the first requests compile the code paths: not growth
  const hostStart = await gcPeer(host);
  load(requests);
  const hostEnd = await gcPeer(host);
  await host.stop();
  return {
    gateway: { requests, startMB: gwStart.rss, endMB: gwEnd.rss, heapStartMB: gwStart.heap, heapEndMB: gwEnd.heap },
    host: { requests, startMB: hostStart.rss, endMB: hostEnd.rss, heapStartMB: hostStart.heap, heapEndMB: hostEnd.heap },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await benchMemory();
  for (const [what, l] of Object.entries(f)) {
    console.log(`${what}: RSS ${l.startMB.toFixed(1)} → ${l.endMB.toFixed(1)} MB, heap ${l.heapStartMB.toFixed(1)} → ${l.heapEndMB.toFixed(1)} MB after ${l.requests} requests and a forced GC`);
  }
}
