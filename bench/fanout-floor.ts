/**
 * `node --import tsx bench/fanout-floor.ts`: what the features of each federated search cost over the floor of its
 * own stack (issue 38). fhirgate's facade, the feature-equal Fastify build and the two fan-out floors of
 * bench/facade.ts (`node:http` + one `http.Agent`; Fastify + undici Pools: both sources asked in parallel, their
 * entries sent as one Bundle, nothing else) are each started fresh on each Node of `benchNodes()`, warmed
 * `BENCH_WARMUP` seconds, and measured `BENCH_SECONDS` (default 6) at `BENCH_CONNECTIONS` (default 16) on the
 * federated search, compiled and pinned as the bench runs them, in `BENCH_RUNS` rounds alternating the Nodes and the
 * contenders. Per Node, over the rounds in which every server kept its core at least `BENCH_MIN_BUSY` busy (default
 * 0: all), it prints each server's CPU µs per request, median (min–max), and, paired within each round: fhirgate −
 * node:http floor (fhirgate's features), anchor − undici floor (the anchor's), their ratio, and the undici floor ÷ the
 * node:http floor (what the transport alone costs on each stack); the same from each server's least
 * window, since a shared machine's noise only adds. The raw rounds go to stdout as JSON last.
 */
import { ANCHOR, BENCH_KEY, checkFloors, CONTENDERS, FHIRGATE, load, NODE_FANOUT, PATHS, UNDICI_FANOUT } from './facade.js';
import { autocannon, WARMUP_SECONDS } from './host.js';
import { benchNodes } from './lib/nodes.js';
import { startPeer } from './lib/processes.js';
import { fmt, RUNS, summarize } from './lib/stats.js';

const NAMES = [FHIRGATE, ANCHOR, NODE_FANOUT, UNDICI_FANOUT];
const servers = NAMES.map((name) => CONTENDERS.find((c) => c.name === name)!);
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const nodes = benchNodes();
/** One round on one Node: each contender's server CPU µs per request, req/s, core busy share and errors. */
type Round = Record<string, { cpu: number; rps: number; busy: number; errors: number }>;
/** Per Node, its rounds. */
const rounds = new Map(nodes.map((n) => [n.version, [] as Round[]]));

const upstream = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url), [], {}, [], 'client');
try {
  for (const node of nodes) await checkFloors(node, upstream.port);
  for (let run = 0; run < RUNS; run++) {
    for (const node of run % 2 === 0 ? nodes : [...nodes].reverse()) {
      const round: Round = {};
      for (const c of run % 2 === 0 ? servers : [...servers].reverse()) {
        const peer = await startPeer(new URL(`./servers/${c.script}`, import.meta.url), [String(upstream.port), BENCH_KEY], {}, [], 'server', node.path);
        try {
          const url = `http://127.0.0.1:${peer.port}${PATHS.federated.server}`;
          autocannon(url, connections, WARMUP_SECONDS, { 'x-api-key': BENCH_KEY });
          const m = load(url, connections, seconds, peer.child.pid); // taskset execs node: the same pid
          round[c.name] = { cpu: m.cpu, rps: m.rps, busy: m.busy, errors: m.errors };
          console.error(`run ${run + 1} ${node.version} ${c.name}: ${m.cpu.toFixed(1)} µs/req, ${m.rps.toFixed(0)} req/s, server core ${(m.busy * 100).toFixed(0)}% busy, ${m.errors} errors`);
        } finally {
          await peer.stop();
        }
      }
      rounds.get(node.version)!.push(round);
    }
  }
} finally {
  await upstream.stop();
}

/** A round counts when every server kept its core at least `BENCH_MIN_BUSY` busy (default 0: all): below, the load generator was starved and each request paid a wake-up of its own. */
const minBusy = Number(process.env.BENCH_MIN_BUSY ?? 0);
for (const [version, all] of rounds) {
  const rs = all.filter((r) => NAMES.every((name) => r[name]!.busy >= minBusy));
  if (rs.length === 0) {
    console.log(`\nNode ${version}: no round with every server core ≥ ${minBusy * 100}% busy`);
    continue;
  }
  const of = (f: (r: Round) => number) => fmt(summarize(rs.map(f)), 1);
  const cpu = (r: Round, name: string) => r[name]!.cpu;
  console.log(`\nNode ${version}, federated search, ${connections} connections, server CPU µs per request, median (min–max) of ${rs.length} rounds${minBusy > 0 ? ` (of ${all.length}) with every server core ≥ ${minBusy * 100}% busy` : ''}`);
  for (const name of NAMES) console.log(`  ${name.padEnd(46)} ${of((r) => cpu(r, name))}  (${of((r) => r[name]!.rps)} req/s, ${rs.reduce((n, r) => n + r[name]!.errors, 0)} errors)`);
  console.log('  paired within each round:');
  console.log(`  ${'fhirgate − node:http floor'.padEnd(46)} ${of((r) => cpu(r, FHIRGATE) - cpu(r, NODE_FANOUT))}`);
  console.log(`  ${'anchor − undici floor'.padEnd(46)} ${of((r) => cpu(r, ANCHOR) - cpu(r, UNDICI_FANOUT))}`);
  console.log(`  ${'(anchor − undici) ÷ (fhirgate − node:http)'.padEnd(46)} ${fmt(summarize(rs.map((r) => (cpu(r, ANCHOR) - cpu(r, UNDICI_FANOUT)) / (cpu(r, FHIRGATE) - cpu(r, NODE_FANOUT)))), 3)}`);
  console.log(`  ${'undici floor ÷ node:http floor'.padEnd(46)} ${fmt(summarize(rs.map((r) => cpu(r, UNDICI_FANOUT) / cpu(r, NODE_FANOUT))), 3)}`);
  console.log(`  ${'anchor ÷ fhirgate (requests per CPU-second)'.padEnd(46)} ${fmt(summarize(rs.map((r) => cpu(r, ANCHOR) / cpu(r, FHIRGATE))), 3)}`);
  // Noise on a shared machine only adds CPU per request (a starved load generator leaves each request its own wake-up): the least-disturbed window of each.
  const least = Object.fromEntries(NAMES.map((name) => [name, Math.min(...rs.map((r) => cpu(r, name)))]));
  console.log(`  from each one's least window: fhirgate − node:http ${(least[FHIRGATE]! - least[NODE_FANOUT]!).toFixed(1)}, anchor − undici ${(least[ANCHOR]! - least[UNDICI_FANOUT]!).toFixed(1)}, ratio ${((least[ANCHOR]! - least[UNDICI_FANOUT]!) / (least[FHIRGATE]! - least[NODE_FANOUT]!)).toFixed(3)}, undici ÷ node:http ${(least[UNDICI_FANOUT]! / least[NODE_FANOUT]!).toFixed(3)}, anchor ÷ fhirgate ${(least[ANCHOR]! / least[FHIRGATE]!).toFixed(3)}`);
}
console.log(JSON.stringify(Object.fromEntries(rounds)));
