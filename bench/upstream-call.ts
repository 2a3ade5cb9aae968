/**
 * The facade's upstream call alone, on the client side (issue 38): CPU per call of this process at a
 * fixed concurrency against the fixed-response upstream in its own process (pinned as in the bench:
 * this process on core 0, the upstream on the last core), contenders run alternately, run by run:
 *
 * - `raw node:http Agent`: the floor of `node:http` itself, a keep-alive Agent sending the same GET with
 *   the headers fhirgate sends (`accept`, `user-agent`, a fresh `traceparent`) and gathering the body;
 * - `fhirgate AgentPool`: fhirgate's transport (`sendChecked`, options checked once);
 * - `fhirgate gateway.exchange`: what the facade calls for a read (the gateway's call path over the pool).
 *
 * Every call is made inside one trace (`runInTrace`), as the facade's are inside their request's.
 * `node --import tsx bench/upstream-call.ts [concurrency] [seconds]` (defaults 16 and 2; `BENCH_RUNS`,
 * default 7), on any Node (`/path/to/node --import tsx ...`). `UPSTREAM_PROFILE` runs one contender
 * alone for `--cpu-prof` and prints the measured window (`process.hrtime` µs) and the calls made in it.
 */
import http from 'node:http';
import { AsyncFHIRGateway } from '../src/index.js';
import { AgentPool } from '../src/http/agent-pool.js';
import { checkRequestOptions } from '../src/http/request-options.js';
import { childSpan, formatTraceparent, startTrace } from '../src/lib/trace-context.js';
import { runInTrace } from '../src/lib/trace-scope.js';
import { closedLoop } from './lib/closed-loop.js';
import { pinSelf, startPeer } from './lib/processes.js';
import { summarize } from './lib/stats.js';

const concurrency = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 2);
const runs = Number(process.env.BENCH_RUNS ?? 7);

pinSelf('client');
const server = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url));
const base = `http://127.0.0.1:${server.port}/fhir/R4`;
const path = '/fhir/R4/Patient/bench-1';
/** The trace every call is made in, as a facade's request is: each call is a child span of it. */
const trace = startTrace();
const inTrace = (call: () => Promise<unknown>) => (): Promise<unknown> => runInTrace(trace, call);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64 });
const raw = (): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const headers = { accept: 'application/fhir+json', 'user-agent': 'raw/1', traceparent: formatTraceparent(childSpan(trace)) };
    http
      .request({ agent, hostname: '127.0.0.1', port: server.port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject)
      .end();
  });

const pool = new AgentPool({ maxConnections: 64, maxKeepaliveConnections: 64, keepaliveExpiry: 30 });
const target = new URL(`${base}/Patient/bench-1`);
const checked = checkRequestOptions({ headers: { accept: 'application/fhir+json' } });
const pooled = (): Promise<unknown> => pool.sendChecked(target, checked);

const gw = new AsyncFHIRGateway({ maxConnections: 64, maxKeepaliveConnections: 64, keepaliveExpiry: 30 });
gw.addSource('ehr', `fhir://127.0.0.1:${server.port}/fhir/R4/`);
const request = { method: 'GET', path: 'Patient/bench-1', headers: { accept: 'application/fhir+json' }, resourceType: 'Patient', operation: 'read' } as const;
const exchanged = (): Promise<unknown> => gw.exchange('ehr', request);

const contenders = [
  { name: 'raw node:http Agent', call: inTrace(raw) },
  { name: 'fhirgate AgentPool', call: inTrace(pooled) },
  { name: 'fhirgate gateway.exchange', call: inTrace(exchanged) },
];
/** `UPSTREAM_PROFILE`: `1` runs the gateway's contender alone, `pool` the pool's, `raw` the raw Agent's (for `--cpu-prof`). */
const profiling = process.env.UPSTREAM_PROFILE;
const all = profiling === '1' ? contenders.slice(2) : profiling === 'raw' ? contenders.slice(0, 1) : profiling === 'pool' ? contenders.slice(1, 2) : contenders;
const cpu = new Map<string, number[]>(all.map((c) => [c.name, []]));
/** Calls made in the measured runs (about: rate times length), for dividing a profile. */
let measured = 0;
try {
  for (const c of all) await closedLoop(c.call, concurrency, 0.5);
  const from = process.hrtime.bigint() / 1000n;
  for (let run = 0; run < runs; run++) {
    for (const c of run % 2 === 0 ? all : [...all].reverse()) {
      const r = await closedLoop(c.call, concurrency, seconds);
      if (r.errors > 0) throw new Error(`${c.name}: ${r.errors} errors`);
      cpu.get(c.name)!.push(r.cpuUs);
      measured += r.rps * seconds;
    }
  }
  if (profiling !== undefined) console.log(`window ${from} ${process.hrtime.bigint() / 1000n}`);
} finally {
  await gw.close();
  await pool.close();
  agent.destroy();
  await server.stop();
}
const floor = summarize(cpu.get(all[0]!.name)!).median;
if (profiling !== undefined) console.log(`measured calls ${measured.toFixed(0)}`);
console.log(`upstream call on node ${process.version}, concurrency ${concurrency}, ${runs} runs of ${seconds} s; client CPU µs per call, median (min–max)`);
for (const [name, values] of cpu) {
  const s = summarize(values);
  console.log(`  ${name.padEnd(28)} ${s.median.toFixed(1).padStart(6)} (${s.min.toFixed(1)}–${s.max.toFixed(1)})  ${(s.median / floor).toFixed(2)}x ${all[0]!.name}`);
}
