/**
 * `node --import tsx bench/warmup.ts [server ...]`: how long a fresh facade server takes to reach its steady
 * CPU per request, which is why the bench warms every fresh server `BENCH_WARMUP` seconds before measuring
 * (issue 38, `readcost`). Each server (default `facade-fhirgate.ts` and `facade-fastify.ts`) is started on
 * each Node of `benchNodes()` over the fixed-response upstream, loaded 1 s, then in `BENCH_WINDOWS`
 * (default 12) windows of 1 s at `BENCH_CONNECTIONS` (default 16). Per window it prints the server's CPU µs
 * per answered request: all threads, the main thread alone, and the other threads (V8's compiler and GC
 * helpers, pinned to the same core as the main thread). The first windows carry the just-in-time
 * compilation of the read path; the last are the steady cost. `PROFILE_PATH` as in profile.ts (default the read).
 */
import { readFileSync } from 'node:fs';
import { BENCH_KEY } from './facade.js';
import { autocannon } from './host.js';
import { cpuSeconds } from './lib/cpu.js';
import { benchNodes } from './lib/nodes.js';
import { startPeer } from './lib/processes.js';

/** CPU seconds of the main thread of `pid` (its first thread has the process's id). */
function mainThreadSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const scripts = process.argv.length > 2 ? process.argv.slice(2) : ['facade-fhirgate.ts', 'facade-fastify.ts'];
  const windows = Number(process.env.BENCH_WINDOWS ?? 12);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
  const path = process.env.PROFILE_PATH ?? '/fhir/ehr/Patient/bench-1';
  const headers = { 'x-api-key': BENCH_KEY };
  const upstream = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url), [], {}, [], 'client');
  try {
    console.log(`${path} at ${connections} connections; per 1 s window: server CPU µs per request, all threads / main thread / other threads`);
    for (const node of benchNodes()) {
      for (const script of scripts) {
        const peer = await startPeer(new URL(`./servers/${script}`, import.meta.url), [String(upstream.port), BENCH_KEY], {}, [], 'server', node.path);
        const pid = peer.child.pid!;
        const url = `http://127.0.0.1:${peer.port}${path}`;
        try {
          autocannon(url, connections, 1, headers);
          const cells: string[] = [];
          for (let w = 0; w < windows; w++) {
            const [all, main] = [cpuSeconds(pid), mainThreadSeconds(pid)];
            const r = autocannon(url, connections, 1, headers);
            const [dAll, dMain] = [cpuSeconds(pid) - all, mainThreadSeconds(pid) - main];
            const us = (s: number) => ((s * 1e6) / r.requests).toFixed(0);
            cells.push(r.requests === 0 ? 'none answered' : `${us(dAll)}/${us(dMain)}/${us(dAll - dMain)}`);
          }
          console.log(`${script} on node ${node.version}: ${cells.join(' ')}`);
        } finally {
          await peer.stop();
        }
      }
    }
  } finally {
    await upstream.stop();
  }
}
