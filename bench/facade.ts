/**
 * Workload `facade`: the FHIR facade's read (`/fhir/ehr/Patient/bench-1`) and federated search over two
 * sources (`/fhir/all/Patient?family=Benchmark`) against the feature-equal Fastify 5 build
 * (servers/facade-fastify.ts: reply-from for the read, `Promise.all` over undici for the search, with
 * the facade's key check, rewriting, headers and audit), plain `@fastify/reply-from` (the read, and
 * the search forwarded to one source: doing nothing but forwarding, the ceiling), the same nothing on
 * `node:http` with one keep-alive `http.Agent` (servers/facade-node-proxy.ts: what fhirgate's own
 * transport costs before fhirgate does anything) and the upstream itself (a direct read or search of one
 * source: the floor). Two more serve only the federated search: the floor of a fan-out over two sources on each
 * stack, asking both with the same query in parallel, parsing both answers and sending their entries as one Bundle,
 * nothing else (servers/facade-fanout-node.ts on `node:http` and one `http.Agent`, servers/facade-fanout-fastify.ts
 * on Fastify 5 and undici Pools): fhirgate's federated search minus the `node:http` floor is what fhirgate's
 * features cost, the feature-equal build minus the undici floor what the anchor's cost. Throughput and the server's CPU per request at 16 and 64 connections
 * (autocannon), and latency at 1 connection with microsecond resolution. Every server runs on each Node
 * of `benchNodes()`, alternated run by run; the upstream (servers/fixed-fhir.ts), autocannon and the
 * latency client on the running Node and the other core. Before it measures, it checks on each Node that
 * the anchor and the facade answer alike (status, body, headers, the size of the AuditEvent's JSON) and
 * throws where they do not, and that each fan-out floor answers 200 with both sources' entries (alone:
 * `node --import tsx bench/facade.ts --parity`). Targets (issue 38): the facade ≥ 1.1× the feature-equal build in throughput
 * and CPU per request, < 0.3 ms added p50 over the direct read at 1 connection.
 * Run alone: `node --import tsx bench/facade.ts`. `--latency` measures only the read's latency at 1 connection, of
 * the direct read and of the four read servers started at once on each Node, in `BENCH_RUNS` rounds, each with the
 * cores idle and kept awake (lib/awake.ts), the two in alternating order.
 */
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { autocannon, WARMUP_SECONDS } from './host.js';
import { cpuSeconds } from './lib/cpu.js';
import { benchNodes, type BenchNode } from './lib/nodes.js';
import { checkCanKeepCoresAwake, keepCoresAwake } from './lib/awake.js';
import { coreFor, startPeer, type Peer } from './lib/processes.js';
import { fmt, percentile, RUNS, summarize, type Summary } from './lib/stats.js';
import { FEDERATED_QUERY, SEARCH_BASES, SEARCH_ENTRIES } from './servers/fixed-patient.js';

/** The bench caller's API key (not a secret: it guards a fixed Patient on loopback). */
export const BENCH_KEY = 'bench-caller-key-0123456789';

/** What is asked: a read at one source, or a search at the federated base over both. */
export type Kind = 'read' | 'federated';
export const PATHS: Record<Kind, { server: string; direct: string }> = {
  read: { server: '/fhir/ehr/Patient/bench-1', direct: `${SEARCH_BASES.ehr}/Patient/bench-1` },
  federated: { server: `/fhir/all/${FEDERATED_QUERY}`, direct: `${SEARCH_BASES.ehr}/${FEDERATED_QUERY}` },
};

/** The contenders' names, as the tables show them. */
export const DIRECT = 'direct (the upstream, one source)';
export const PLAIN = '@fastify/reply-from, plain';
/** The same nothing on `node:http` and one keep-alive `http.Agent`, fhirgate's own transport: what the HTTP client alone costs, beside undici's. */
export const NODE_PLAIN = 'node:http + http.Agent, plain';
export const ANCHOR = 'Fastify 5 + reply-from/undici, feature-equal';
export const FHIRGATE = 'fhirgate facade';
/** The facade with the OpenTelemetry SDK as its tracer (issue 37: ≤ 5% more CPU per request). */
export const FHIRGATE_TRACED = 'fhirgate facade, tracing on';
/** The floor of a federated search on `node:http` and one `http.Agent`: both sources asked in parallel, their entries sent as one Bundle, nothing else. */
export const NODE_FANOUT = 'node:http fan-out, nothing else';
/** The same floor on Fastify 5 and undici Pools, the anchor's stack. */
export const UNDICI_FANOUT = 'Fastify + undici fan-out, nothing else';

/** Each server and what it is asked; plain reply-from and the plain `node:http` forwarder, which have no federated base, forward the search to one source (the ceiling of doing nothing). */
export const CONTENDERS: { name: string; script: string; serves: Kind[]; paths?: Partial<Record<Kind, string>> }[] = [
  { name: PLAIN, script: 'facade-reply-from.ts', serves: ['read', 'federated'], paths: { federated: `/fhir/ehr/${FEDERATED_QUERY}` } },
  { name: NODE_PLAIN, script: 'facade-node-proxy.ts', serves: ['read', 'federated'], paths: { federated: `/fhir/ehr/${FEDERATED_QUERY}` } },
  { name: ANCHOR, script: 'facade-fastify.ts', serves: ['read', 'federated'] },
  { name: FHIRGATE, script: 'facade-fhirgate.ts', serves: ['read', 'federated'] },
  { name: FHIRGATE_TRACED, script: 'facade-fhirgate-traced.ts', serves: ['read', 'federated'] },
  { name: NODE_FANOUT, script: 'facade-fanout-node.ts', serves: ['federated'] },
  { name: UNDICI_FANOUT, script: 'facade-fanout-fastify.ts', serves: ['federated'] },
];
/** The fan-out floors, checked by {@link checkFloors} rather than against the facade (they do less). */
const FLOORS = CONTENDERS.filter((c) => c.name === NODE_FANOUT || c.name === UNDICI_FANOUT);

/** The node label of the direct row: the upstream runs on the Node running the bench. */
export const UPSTREAM_NODE = `${process.version} (upstream)`;

/** One contender on one Node in one case. */
export interface FacadeRow {
  contender: string;
  node: string;
  /** req/s, autocannon's p50/p99 in ms, server CPU µs per request and its core's busy share (load cases); p50/p99 in µs (latency cases). */
  rps?: Summary;
  p50: Summary;
  p99: Summary;
  cpu?: Summary;
  busy?: Summary;
  errors: number;
}

/** One measured case: `read, 16 connections`, `federated, 1 connection`, ... */
export interface FacadeCase {
  kind: Kind;
  /** 1 for the latency case. */
  connections: number;
  rows: FacadeRow[];
}

/** What the parity check found on one Node: the AuditEvent JSON sizes of each (bytes). */
export interface Parity {
  node: string;
  auditBytes: Record<Kind, { fhirgate: number; anchor: number }>;
}

/** One load or latency measurement. */
export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  cpu: number;
  busy: number;
  errors: number;
}

/** autocannon against `url` (after a `warm`-second warm-up at `connections`, default 1, the server already warm: {@link WARMUP_SECONDS}), with the CPU the server `pid` used meanwhile. */
export function load(url: string, connections: number, seconds: number, pid: number | undefined, warm = 1): Measured {
  if (warm > 0) autocannon(url, connections, warm, { 'x-api-key': BENCH_KEY });
  const before = cpuSeconds(pid);
  const r = autocannon(url, connections, seconds, { 'x-api-key': BENCH_KEY });
  const used = cpuSeconds(pid) - before;
  return { rps: r.rps, p50: r.p50, p99: r.p99, cpu: (used * 1e6) / r.requests, busy: used / r.seconds, errors: r.errors };
}

/** One answer, as the parity check compares it: status, the headers that matter, the body with the server's own port taken out. */
export interface Answer {
  status: number;
  headers: Record<string, string | null>;
  body: unknown;
}
const COMPARED_HEADERS = ['content-type', 'etag', 'x-content-type-options', 'keep-alive', 'last-modified', 'location', 'content-location'];

/** `GET path` of the server at `port` as the bench caller, as the parity check compares it. */
export async function answer(port: number, path: string): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-api-key': BENCH_KEY } });
  const text = (await res.text()).replaceAll(`127.0.0.1:${port}`, '127.0.0.1:PORT');
  const headers = Object.fromEntries(COMPARED_HEADERS.map((h) => [h, res.headers.get(h)]));
  headers['x-request-id'] = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(res.headers.get('x-request-id') ?? '') ? 'uuid-shaped' : res.headers.get('x-request-id');
  headers['x-trace-id'] = /^[0-9a-f]{32}$/.test(res.headers.get('x-trace-id') ?? '') ? 'trace-id-shaped' : res.headers.get('x-trace-id');
  return { status: res.status, headers, body: JSON.parse(text) };
}

/** What `peer` has audited so far: how many AuditEvents, the bytes of the last one's JSON and of all of them (it prints `audited <n> <bytes> <all bytes>` on SIGUSR1). */
export function auditCounts(peer: Peer): Promise<{ count: number; last: number; total: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no audit count on SIGUSR1')), 30_000);
    const onData = (chunk: Buffer) => {
      const m = /audited (\d+) (\d+) (\d+)/.exec(chunk.toString());
      if (m === null) return;
      clearTimeout(timer);
      peer.child.stdout!.off('data', onData);
      resolve({ count: Number(m[1]), last: Number(m[2]), total: Number(m[3]) });
    };
    peer.child.stdout!.on('data', onData);
    setTimeout(() => peer.child.kill('SIGUSR1'), 300); // after the anchor's queue consumer (100 ms) and the facade's turn
  });
}

/** Each kind's answer and the size of its (last) AuditEvent. */
async function probe(peer: Peer): Promise<Record<Kind, { answer: Answer; auditBytes: number }>> {
  const out = {} as Record<Kind, { answer: Answer; auditBytes: number }>;
  for (const kind of ['read', 'federated'] as const) {
    const a = await answer(peer.port, PATHS[kind].server);
    out[kind] = { answer: a, auditBytes: (await auditCounts(peer)).last };
  }
  return out;
}

/**
 * Starts the facade and the anchor on `node` over `upstreamPort` and throws unless they give the same
 * answers (status, body, the headers that matter) and AuditEvents of the same size, for a read and a
 * federated search.
 */
export async function checkParity(node: BenchNode, upstreamPort: number): Promise<Parity> {
  const probes: Record<string, Awaited<ReturnType<typeof probe>>> = {};
  for (const [name, script] of [[FHIRGATE, 'facade-fhirgate.ts'], [ANCHOR, 'facade-fastify.ts']] as const) {
    const peer = await startPeer(new URL(`./servers/${script}`, import.meta.url), [String(upstreamPort), BENCH_KEY], {}, [], 'server', node.path);
    try {
      probes[name] = await probe(peer);
    } finally {
      await peer.stop();
    }
  }
  const [fhirgate, anchor] = [probes[FHIRGATE]!, probes[ANCHOR]!];
  for (const kind of ['read', 'federated'] as const) {
    const [f, a] = [fhirgate[kind], anchor[kind]];
    if (f.answer.status !== 200 || !isDeepStrictEqual(f.answer, a.answer)) {
      throw new Error(`facade parity (${kind}, node ${node.version}): the anchor answers differently:\nfhirgate ${JSON.stringify(f.answer).slice(0, 2000)}\nanchor   ${JSON.stringify(a.answer).slice(0, 2000)}`);
    }
    if (f.auditBytes !== a.auditBytes) throw new Error(`facade parity (${kind}, node ${node.version}): AuditEvent JSON of ${f.auditBytes} bytes (fhirgate) against ${a.auditBytes} (anchor)`);
  }
  return { node: node.version, auditBytes: { read: { fhirgate: fhirgate.read.auditBytes, anchor: anchor.read.auditBytes }, federated: { fhirgate: fhirgate.federated.auditBytes, anchor: anchor.federated.auditBytes } } };
}

/**
 * Starts each fan-out floor on `node` over `upstreamPort` and throws unless its federated search answers 200 with
 * {@link SEARCH_ENTRIES} entries from each source (the upstream's `fullUrl`s under each of {@link SEARCH_BASES}).
 */
export async function checkFloors(node: BenchNode, upstreamPort: number): Promise<void> {
  for (const floor of FLOORS) {
    const peer = await startPeer(new URL(`./servers/${floor.script}`, import.meta.url), [String(upstreamPort), BENCH_KEY], {}, [], 'server', node.path);
    try {
      const a = await answer(peer.port, PATHS.federated.server);
      const urls = ((a.body as { entry?: { fullUrl?: unknown }[] }).entry ?? []).map((e) => String(e.fullUrl));
      const each = Object.values(SEARCH_BASES).map((base) => urls.filter((u) => u.startsWith(`http://127.0.0.1:${upstreamPort}${base}/`)).length);
      if (a.status !== 200 || !/^application\/fhir\+json/.test(a.headers['content-type'] ?? '') || urls.length !== each.length * SEARCH_ENTRIES || each.some((n) => n !== SEARCH_ENTRIES)) {
        throw new Error(`facade floor ${floor.name} (node ${node.version}) does not answer both sources' entries: ${JSON.stringify(a).slice(0, 2000)}`);
      }
    } finally {
      await peer.stop();
    }
  }
}

/**
 * Every case: per run, per Node (alternated), per contender (alternated), one server process measured in
 * every case it serves; the direct rows once per run.
 */
export async function benchFacade(connectionCounts = [16, 64], seconds = Number(process.env.BENCH_SECONDS ?? 3), latencyRequests = Number(process.env.BENCH_LATENCY_REQUESTS ?? 4000), nodes: BenchNode[] = benchNodes()): Promise<{ cases: FacadeCase[]; parity: Parity[] }> {
  const upstream = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url), [], {}, [], 'client');
  const runs = new Map<string, Measured[]>();
  const add = (kind: Kind, connections: number, contender: string, node: string, m: Measured) => {
    const key = JSON.stringify([kind, connections, contender, node]);
    runs.set(key, [...(runs.get(key) ?? []), m]);
  };
  const measureAll = (port: number, pid: number | undefined, contender: string, node: string, kinds: Kind[], direct: boolean, paths: Partial<Record<Kind, string>> = {}) => {
    for (const kind of kinds) {
      const url = `http://127.0.0.1:${port}${direct ? PATHS[kind].direct : (paths[kind] ?? PATHS[kind].server)}`;
      for (const connections of connectionCounts) add(kind, connections, contender, node, load(url, connections, seconds, pid));
      const l = latencyClient(url, latencyRequests);
      add(kind, 1, contender, node, { rps: NaN, p50: l.p50, p99: l.p99, cpu: NaN, busy: NaN, errors: l.errors });
    }
  };
  const parity: Parity[] = [];
  try {
    for (const node of nodes) {
      parity.push(await checkParity(node, upstream.port));
      await checkFloors(node, upstream.port);
    }
    for (let run = 0; run < RUNS; run++) {
      measureAll(upstream.port, undefined, DIRECT, UPSTREAM_NODE, ['read', 'federated'], true);
      for (const node of run % 2 === 0 ? nodes : [...nodes].reverse()) {
        for (const c of run % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse()) {
          const peer = await startPeer(new URL(`./servers/${c.script}`, import.meta.url), [String(upstream.port), BENCH_KEY], {}, [], 'server', node.path);
          try {
            for (const kind of c.serves) autocannon(`http://127.0.0.1:${peer.port}${c.paths?.[kind] ?? PATHS[kind].server}`, 16, WARMUP_SECONDS, { 'x-api-key': BENCH_KEY });
            measureAll(peer.port, peer.child.pid, c.name, node.version, c.serves, false, c.paths); // taskset execs node: the same pid
          } finally {
            await peer.stop();
          }
        }
      }
    }
  } finally {
    await upstream.stop();
  }
  const cases: FacadeCase[] = [];
  for (const kind of ['read', 'federated'] as const) {
    for (const connections of [...connectionCounts, 1]) {
      const rows: FacadeRow[] = [];
      for (const contender of [DIRECT, ...CONTENDERS.map((c) => c.name)]) {
        for (const node of contender === DIRECT ? [UPSTREAM_NODE] : nodes.map((n) => n.version)) {
          const rs = runs.get(JSON.stringify([kind, connections, contender, node]));
          if (rs === undefined) continue;
          const s = (f: (m: Measured) => number) => summarize(rs.map(f));
          const errors = rs.reduce((n, r) => n + r.errors, 0);
          rows.push(connections === 1 ? { contender, node, p50: s((m) => m.p50), p99: s((m) => m.p99), errors } : { contender, node, rps: s((m) => m.rps), p50: s((m) => m.p50), p99: s((m) => m.p99), cpu: s((m) => m.cpu), busy: s((m) => m.busy), errors });
        }
      }
      cases.push({ kind, connections, rows });
    }
  }
  return { cases, parity };
}

/** Runs this file as the latency client (`--latency-client <url> <requests>`) in its own process. */
export function latencyClient(url: string, requests: number): { p50: number; p99: number; errors: number } {
  const core = coreFor('client');
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--latency-client', url, String(requests)];
  const [cmd, argv] = core === undefined ? [process.execPath, args] : ['taskset', ['-c', String(core), process.execPath, ...args]];
  const out = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`latency client failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as { p50: number; p99: number; errors: number };
}

/** The client: one keep-alive connection, one request at a time, each timed; prints p50/p99 in µs. */
async function runLatencyClient(url: string, requests: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let errors = 0;
  const once = () => new Promise<number>((resolve) => {
    const started = process.hrtime.bigint();
    const req = request(url, { agent, headers: { 'x-api-key': BENCH_KEY } }, (res) => {
      if (res.statusCode !== 200) errors++;
      res.on('data', () => {});
      res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1000));
    });
    req.on('error', () => {
      errors++;
      resolve(NaN);
    });
    req.end();
  });
  for (let i = 0; i < requests; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push(await once());
  agent.destroy();
  const timed = times.filter((t) => !Number.isNaN(t));
  process.stdout.write(JSON.stringify({ p50: percentile(timed, 50), p99: percentile(timed, 99), errors }));
}

/** The read servers whose latency `--latency` measures: the two do-nothing forwarders, then the two feature-equal builds. */
const LATENCY_SERVERS = [NODE_PLAIN, PLAIN, FHIRGATE, ANCHOR];

/**
 * `--latency`: each read server's p50 at 1 connection and what it adds over the direct read's p50 of the same round
 * and mode, per Node; the median over `BENCH_RUNS` rounds, with the cores idle and kept awake.
 */
async function latencyWithCoresAwake(requests: number): Promise<void> {
  checkCanKeepCoresAwake();
  const upstream = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url), [], {}, [], 'client');
  const direct = `http://127.0.0.1:${upstream.port}${PATHS.read.direct}`;
  try {
    for (const node of benchNodes()) {
      const peers: Peer[] = [];
      try {
        for (const name of LATENCY_SERVERS) peers.push(await startPeer(new URL(`./servers/${CONTENDERS.find((c) => c.name === name)!.script}`, import.meta.url), [String(upstream.port), BENCH_KEY], {}, [], 'server', node.path));
        const urls = peers.map((p) => `http://127.0.0.1:${p.port}${PATHS.read.server}`);
        for (const url of urls) autocannon(url, 16, WARMUP_SECONDS, { 'x-api-key': BENCH_KEY });
        const added = new Map<string, number[]>();
        for (let run = 0; run < RUNS; run++) {
          for (const mode of run % 2 === 0 ? ['idle', 'awake'] : ['awake', 'idle']) {
            const stop = mode === 'awake' ? await keepCoresAwake() : () => {};
            try {
              const base = latencyClient(direct, requests).p50;
              const p50s = urls.map((url) => latencyClient(url, requests).p50);
              console.error(`${node.version} round ${run + 1}, cores ${mode}: direct ${base.toFixed(0)} µs, ${LATENCY_SERVERS.map((n, i) => `${n} ${p50s[i]!.toFixed(0)}`).join(', ')}`);
              LATENCY_SERVERS.forEach((n, i) => added.set(`${n}|${mode}`, [...(added.get(`${n}|${mode}`) ?? []), p50s[i]! - base]));
            } finally {
              stop();
            }
          }
        }
        for (const mode of ['idle', 'awake']) {
          console.log(`Node ${node.version}, cores ${mode}, added p50 over the direct read (µs; median (min–max) of ${RUNS} rounds):`);
          for (const n of LATENCY_SERVERS) console.log(`  ${n.padEnd(46)} ${fmt(summarize(added.get(`${n}|${mode}`)!), 0)}`);
        }
      } finally {
        for (const p of peers) await p.stop();
      }
    }
  } finally {
    await upstream.stop();
  }
}

const main = import.meta.url === `file://${process.argv[1]}`;
if (main && process.argv[2] === '--latency') {
  await latencyWithCoresAwake(Number(process.env.BENCH_LATENCY_REQUESTS ?? 2000));
} else if (main && process.argv[2] === '--latency-client') {
  await runLatencyClient(process.argv[3]!, Number(process.argv[4]));
} else if (main && process.argv[2] === '--parity') {
  const upstream = await startPeer(new URL('./servers/fixed-fhir.ts', import.meta.url), [], {}, [], 'client');
  try {
    for (const node of benchNodes()) {
      console.log(JSON.stringify(await checkParity(node, upstream.port)));
      await checkFloors(node, upstream.port);
      console.log(`fan-out floors answer both sources' entries on ${node.version}`);
    }
  } finally {
    await upstream.stop();
  }
} else if (main) {
  const { cases, parity } = await benchFacade();
  for (const c of cases) {
    console.log(`\n${c.kind}, ${c.connections} connection(s)`);
    for (const r of c.rows) console.log(`  ${r.contender.padEnd(46)} ${r.node.padEnd(20)} ${r.rps === undefined ? '' : `${r.rps.median.toFixed(0).padStart(7)} req/s  CPU ${r.cpu!.median.toFixed(0)} µs/req  `}p50 ${r.p50.median}  p99 ${r.p99.median}  errors ${r.errors}`);
  }
  console.log(JSON.stringify(parity));
}
