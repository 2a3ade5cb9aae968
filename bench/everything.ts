/**
 * The `$everything` rows of workload `facade`: `GET /fhir/all/Patient/ehr.e-1/$everything` over two
 * sources of 50 resources each (servers/everything-upstream.ts, each answering `$everything` itself),
 * the patient's resolution cached (`identity.ttlSeconds` 300) and not (0: a read of the patient and a
 * search by identifier in the other source on every request), against the feature-equal Fastify build
 * (servers/facade-fastify.ts with the same TTL: the same resolution, `Promise.all` over undici to each
 * source's `$everything`, the same rewrite, federated ids, links and AuditEvents) and plain
 * `@fastify/reply-from` forwarding one source's own `$everything` (the ceiling of doing nothing).
 * Throughput and server CPU per request at 16 connections, p50 at 1 connection, on each Node of
 * `benchNodes()`; the direct row is one source's own `$everything` on the upstream. Before it measures,
 * it checks on each Node that the anchor and the facade answer alike (status, body, headers, the count and
 * bytes of the AuditEvents per request, cached and not) and throws where they do not
 * (alone: `node --import tsx bench/everything.ts --parity`).
 */
import { isDeepStrictEqual } from 'node:util';
import { answer, auditCounts, BENCH_KEY, latencyClient, load, type Answer, type Measured } from './facade.js';
import { autocannon, WARMUP_SECONDS } from './host.js';
import { benchNodes, type BenchNode } from './lib/nodes.js';
import { startPeer } from './lib/processes.js';
import { RUNS, summarize, type Summary } from './lib/stats.js';
import { EVERYTHING_BASES, EVERYTHING_PATH } from './servers/everything-fixture.js';

/** The rows' contenders. */
export const EVERYTHING_CONTENDERS = {
  cached: 'fhirgate facade, resolution cached',
  uncached: 'fhirgate facade, resolution on every request',
  anchorCached: 'Fastify 5 + undici, feature-equal, resolution cached',
  anchorUncached: 'Fastify 5 + undici, feature-equal, resolution on every request',
  plain: '@fastify/reply-from, plain (one source\'s $everything forwarded)',
  direct: 'direct (one source\'s own $everything)',
} as const;

/** Which contender is measured against which (same resolution setting, same Node). */
export const EVERYTHING_PAIRS: readonly { fhirgate: string; anchor: string }[] = [
  { fhirgate: EVERYTHING_CONTENDERS.cached, anchor: EVERYTHING_CONTENDERS.anchorCached },
  { fhirgate: EVERYTHING_CONTENDERS.uncached, anchor: EVERYTHING_CONTENDERS.anchorUncached },
];

const [SOURCE_BASE, SOURCE_ID] = EVERYTHING_BASES.ehr;
/** One source's `$everything` as plain reply-from forwards it (`/fhir/ehr/*` to `/fhir/R4/*`). */
const PLAIN_PATH = `/fhir/ehr/Patient/${SOURCE_ID}/%24everything`;

/** Each contender's server script, its arguments after the upstream's port and the key (the resolution TTL), and what it is asked. */
export const EVERYTHING_SERVERS: { name: string; script: string; args: string[]; path: string }[] = [
  { name: EVERYTHING_CONTENDERS.cached, script: 'facade-everything.ts', args: ['300'], path: EVERYTHING_PATH },
  { name: EVERYTHING_CONTENDERS.uncached, script: 'facade-everything.ts', args: ['0'], path: EVERYTHING_PATH },
  { name: EVERYTHING_CONTENDERS.anchorCached, script: 'facade-fastify.ts', args: ['300'], path: EVERYTHING_PATH },
  { name: EVERYTHING_CONTENDERS.anchorUncached, script: 'facade-fastify.ts', args: ['0'], path: EVERYTHING_PATH },
  { name: EVERYTHING_CONTENDERS.plain, script: 'facade-reply-from.ts', args: [], path: PLAIN_PATH },
];

/** One contender's figures on one Node. */
export interface EverythingRow {
  contender: string;
  node: string;
  rps: Summary;
  cpu: Summary;
  p50: Summary;
  latencyP50: Summary;
  errors: number;
}

/** What the parity check found on one Node: AuditEvents per request and their JSON bytes, per TTL. */
export interface EverythingParity {
  node: string;
  audits: Record<string, { count: number; bytes: number }>;
}

/** Two requests' answers (the second after the resolution is cached, where it is) and what they audited. */
async function probe(node: BenchNode, upstreamPort: number, script: string, ttl: string): Promise<{ answers: Answer[]; count: number; bytes: number }> {
  const peer = await startPeer(new URL(`./servers/${script}`, import.meta.url), [String(upstreamPort), BENCH_KEY, ttl], {}, [], 'server', node.path);
  try {
    const answers = [await answer(peer.port, EVERYTHING_PATH), await answer(peer.port, EVERYTHING_PATH)];
    const { count, total } = await auditCounts(peer);
    return { answers, count: count / 2, bytes: total / 2 };
  } finally {
    await peer.stop();
  }
}

/** Throws unless the facade and the anchor answer `$everything` alike on `node`, cached and not. */
export async function checkEverythingParity(node: BenchNode, upstreamPort: number): Promise<EverythingParity> {
  const audits: EverythingParity['audits'] = {};
  for (const ttl of ['300', '0']) {
    const f = await probe(node, upstreamPort, 'facade-everything.ts', ttl);
    const a = await probe(node, upstreamPort, 'facade-fastify.ts', ttl);
    for (let i = 0; i < f.answers.length; i++) {
      if (f.answers[i]!.status !== 200 || !isDeepStrictEqual(f.answers[i], a.answers[i])) {
        throw new Error(`$everything parity (ttl ${ttl}, request ${i + 1}, node ${node.version}): the anchor answers differently:\nfhirgate ${JSON.stringify(f.answers[i]).slice(0, 2000)}\nanchor   ${JSON.stringify(a.answers[i]).slice(0, 2000)}`);
      }
    }
    if (f.count !== a.count || f.bytes !== a.bytes) throw new Error(`$everything parity (ttl ${ttl}, node ${node.version}): ${f.count} AuditEvents of ${f.bytes} bytes per request (fhirgate) against ${a.count} of ${a.bytes} (anchor)`);
    audits[ttl] = { count: f.count, bytes: f.bytes };
  }
  return { node: node.version, audits };
}

/** Measures the rows: per run, per Node and contender alternated, one server process each. */
export async function benchEverything(connections = 16, seconds = Number(process.env.BENCH_SECONDS ?? 3), latencyRequests = Number(process.env.BENCH_LATENCY_REQUESTS ?? 1000), nodes: BenchNode[] = benchNodes()): Promise<{ rows: EverythingRow[]; parity: EverythingParity[] }> {
  const upstream = await startPeer(new URL('./servers/everything-upstream.ts', import.meta.url), [], {}, [], 'client');
  const runs = new Map<string, { m: Measured; latency: number }[]>();
  const measure = (url: string, pid: number | undefined, contender: string, node: string) => {
    const m = load(url, connections, seconds, pid);
    const l = latencyClient(url, latencyRequests);
    const key = JSON.stringify([contender, node]);
    runs.set(key, [...(runs.get(key) ?? []), { m: { ...m, errors: m.errors + l.errors }, latency: l.p50 }]);
  };
  const parity: EverythingParity[] = [];
  try {
    for (const node of nodes) parity.push(await checkEverythingParity(node, upstream.port));
    for (let run = 0; run < RUNS; run++) {
      measure(`http://127.0.0.1:${upstream.port}${SOURCE_BASE}/Patient/${SOURCE_ID}/%24everything`, undefined, EVERYTHING_CONTENDERS.direct, `${process.version} (upstream)`);
      for (const node of run % 2 === 0 ? nodes : [...nodes].reverse()) {
        for (const s of run % 2 === 0 ? EVERYTHING_SERVERS : [...EVERYTHING_SERVERS].reverse()) {
          const peer = await startPeer(new URL(`./servers/${s.script}`, import.meta.url), [String(upstream.port), BENCH_KEY, ...s.args], {}, [], 'server', node.path);
          try {
            autocannon(`http://127.0.0.1:${peer.port}${s.path}`, connections, WARMUP_SECONDS, { 'x-api-key': BENCH_KEY });
            measure(`http://127.0.0.1:${peer.port}${s.path}`, peer.child.pid, s.name, node.version);
          } finally {
            await peer.stop();
          }
        }
      }
    }
  } finally {
    await upstream.stop();
  }
  const rows = [...runs].map(([key, rs]) => {
    const [contender, node] = JSON.parse(key) as [string, string];
    const s = (f: (r: { m: Measured; latency: number }) => number) => summarize(rs.map(f));
    return { contender, node, rps: s((r) => r.m.rps), cpu: s((r) => r.m.cpu), p50: s((r) => r.m.p50), latencyP50: s((r) => r.latency), errors: rs.reduce((n, r) => n + r.m.errors, 0) };
  });
  return { rows, parity };
}

if (process.argv[2] === '--parity') {
  const upstream = await startPeer(new URL('./servers/everything-upstream.ts', import.meta.url), [], {}, [], 'client');
  try {
    for (const node of benchNodes()) console.log(JSON.stringify(await checkEverythingParity(node, upstream.port)));
  } finally {
    await upstream.stop();
  }
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, parity } = await benchEverything();
  for (const r of rows) console.log(`${r.contender.padEnd(64)} ${r.node.padEnd(22)} ${r.rps.median.toFixed(0).padStart(6)} req/s  CPU ${r.cpu.median.toFixed(0)} µs/req  p50 at 1 connection ${r.latencyP50.median.toFixed(0)} µs  errors ${r.errors}`);
  console.log(JSON.stringify(parity));
}
