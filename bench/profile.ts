/**
 * `node --import tsx bench/profile.ts [server] [connections ...]`: one bench server (default
 * `host-fhirgate-features.ts`, the fhirgate side of `host-features`) run with `--cpu-prof` under
 * autocannon at each connection count (default 16 and 256), pinned as in the bench, and its profile's
 * self time shared out per answered request over the measured window only (start-up and warm-up left
 * out, after `BENCH_WARMUP` seconds of load as in the bench: V8's sample times and `process.hrtime` read the same monotonic clock): by file group and by
 * function, then the difference between the first and the last connection count. The server's CPU per
 * request (`/proc`) is printed beside it, since the sampled time counts the main thread's wall time.
 * `BENCH_SECONDS` (default 5) sets the measured length; the server runs on the first Node of
 * `benchNodes()` (`BENCH_NODES` picks another). Upstream-reading servers get `fixed-fhir-socket.ts`;
 * the facade's servers (`facade-*.ts`) get `fixed-fhir.ts` and the bench caller's key, and are asked
 * `PROFILE_PATH` (default the read `/fhir/ehr/Patient/bench-1`; `/fhir/all/Patient?family=Benchmark` for
 * the federated search). With `PROFILE_TTL` set (seconds: `0` resolves on every request, `300` caches)
 * the facade's servers get `everything-upstream.ts` and that TTL as their last argument
 * (`facade-everything.ts`, or `facade-fastify.ts` for the anchor) and are asked `EVERYTHING_PATH` unless
 * `PROFILE_PATH` says otherwise.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_KEY } from './facade.js';
import { autocannon, WARMUP_SECONDS } from './host.js';
import { cpuSeconds } from './lib/cpu.js';
import { benchNodes } from './lib/nodes.js';
import { startPeer } from './lib/processes.js';
import { EVERYTHING_PATH } from './servers/everything-fixture.js';

/** The `$everything` rows' resolution TTL, when profiling them. */
const TTL = process.env.PROFILE_TTL;
/** What the facade's servers are asked. */
const FACADE_PATH = process.env.PROFILE_PATH ?? (TTL === undefined ? '/fhir/ehr/Patient/bench-1' : EVERYTHING_PATH);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** What one connection count cost: requests, CPU µs per request, and sampled µs per request by group and by function. */
interface Profiled {
  connections: number;
  rps: number;
  cpuPerRequest: number;
  groups: Map<string, number>;
  functions: Map<string, number>;
}

/** The group a frame's file belongs to. */
function groupOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const src = /\/src\/([^/]+)\//.exec(url);
  if (src !== null && !url.includes('node_modules')) return `fhirgate src/${src[1]}`;
  if (url.startsWith('node:')) return url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  return pkg === null ? url.replace(/^.*\/bench\//, 'bench/') : pkg[1]!;
}

function summarizeProfile(profile: CpuProfile, from: number, to: number, requests: number): Pick<Profiled, 'groups' | 'functions'> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < from || t > to) continue;
    const delta = profile.timeDeltas[i + 1] ?? 0; // a sample stands for the time until the next
    const { functionName, url, lineNumber } = byId.get(profile.samples[i]!)!.callFrame;
    if (functionName === '(idle)') continue;
    const group = groupOf(url, functionName);
    const fn = `${functionName || '(anonymous)'} ${group}${url === '' ? '' : `:${lineNumber + 1}`}`;
    groups.set(group, (groups.get(group) ?? 0) + delta / requests);
    functions.set(fn, (functions.get(fn) ?? 0) + delta / requests);
  }
  return { groups, functions };
}

async function profileAt(script: string, connections: number, seconds: number, node: string, upstreamPort: number | undefined): Promise<Profiled> {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-bench-prof-'));
  const facade = script.startsWith('facade-');
  const args = [...(upstreamPort === undefined ? [] : [String(upstreamPort)]), ...(facade ? [BENCH_KEY] : []), ...(facade && TTL !== undefined ? [TTL] : [])];
  const peer = await startPeer(new URL(`./servers/${script}`, import.meta.url), args, {}, ['--cpu-prof', `--cpu-prof-dir=${dir}`], 'server', node);
  const url = `http://127.0.0.1:${peer.port}${facade ? FACADE_PATH : '/fhir/transform/Patient/bench-1'}`;
  const headers: Record<string, string> = facade ? { 'x-api-key': BENCH_KEY } : {};
  try {
    autocannon(url, connections, WARMUP_SECONDS, headers);
    const before = cpuSeconds(peer.child.pid);
    const from = Number(process.hrtime.bigint() / 1000n);
    const r = autocannon(url, connections, seconds, headers);
    const to = Number(process.hrtime.bigint() / 1000n);
    const used = cpuSeconds(peer.child.pid) - before;
    await peer.stop();
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`${script} wrote no profile`);
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    return { connections, rps: r.rps, cpuPerRequest: (used * 1e6) / r.requests, ...summarizeProfile(profile, from, to, r.requests) };
  } finally {
    await peer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);

if (import.meta.url === `file://${process.argv[1]}`) {
  const script = process.argv[2] ?? 'host-fhirgate-features.ts';
  const counts = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [16, 256];
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const node = benchNodes()[0]!;
  const upstreamScript = script.startsWith('e2e-') ? 'fixed-fhir-socket.ts' : script.startsWith('facade-') ? (TTL === undefined ? 'fixed-fhir.ts' : 'everything-upstream.ts') : undefined;
  const upstream = upstreamScript === undefined ? undefined : await startPeer(new URL(`./servers/${upstreamScript}`, import.meta.url), [], {}, [], 'client');
  const results: Profiled[] = [];
  try {
    for (const c of counts) results.push(await profileAt(script, c, seconds, node.path, upstream?.port));
  } finally {
    await upstream?.stop();
  }
  console.log(`${script}${script.startsWith('facade-') ? ` ${FACADE_PATH}${TTL === undefined ? '' : ` (ttl ${TTL})`}` : ''} on node ${node.version}, ${seconds} s measured per connection count; µs per answered request`);
  for (const p of results) {
    const sampled = [...p.groups.values()].reduce((a, b) => a + b, 0);
    console.log(`\n${p.connections} connections: ${p.rps.toFixed(0)} req/s, server CPU ${p.cpuPerRequest.toFixed(1)} µs/request, sampled (main thread, not idle) ${sampled.toFixed(1)} µs/request`);
    console.log('  by group:');
    for (const [g, us] of top(p.groups, 20)) console.log(`    ${us.toFixed(2).padStart(7)}  ${g}`);
    console.log('  by function (self):');
    for (const [f, us] of top(p.functions, 30)) console.log(`    ${us.toFixed(2).padStart(7)}  ${f}`);
  }
  if (results.length > 1) {
    const [a, b] = [results[0]!, results.at(-1)!];
    for (const [what, key] of [['group', 'groups'], ['function', 'functions']] as const) {
      const diff = new Map([...new Set([...a[key].keys(), ...b[key].keys()])].map((k) => [k, (b[key].get(k) ?? 0) - (a[key].get(k) ?? 0)]));
      console.log(`\nby ${what}, ${b.connections} minus ${a.connections} connections (largest increases):`);
      for (const [k, us] of top(diff, 20)) console.log(`    ${us >= 0 ? '+' : ''}${us.toFixed(2).padStart(6)}  ${k}  (${(a[key].get(k) ?? 0).toFixed(2)} → ${(b[key].get(k) ?? 0).toFixed(2)})`);
    }
  }
}
