/**
 * Workload `paired` (alone: `node --import tsx bench/paired.ts`): each of the facade's target rows decided by
 * paired windows (issue 38). The `facade` workload measures each contender minutes apart, and on a shared virtual
 * machine the log of a run-by-run ratio then varies with a standard deviation near 0.19: five runs cannot tell
 * 1.0× from 1.10×. Here, for each row and each Node of `benchNodes()`, every contender of the row runs at once
 * (compiled, each pinned to the server's core, warmed `BENCH_WARMUP` seconds) and is measured in `BENCH_ROUNDS`
 * (default 3) rounds of back-to-back windows of `BENCH_SECONDS` (default 3) at the row's connection count, the
 * order reversed every other round, so that the two sides of a ratio are seconds apart rather than minutes. The
 * servers are then stopped and the row starts afresh, `BENCH_STARTS` times (default 4, at least 2), the starts of
 * every row and Node interleaved: a ratio also varies from one start of the same servers to the next (a row whose
 * rounds gave 1.13× and 1.18× in two starts gave 1.02× in a third, 2026-11-29), so a start, not a round, is what
 * is repeated.
 *
 * Per row and Node it prints fhirgate ÷ the feature-equal build in requests per server CPU-second and in requests
 * per second: per start, the geometric mean of its rounds' ratios; over the starts, their geometric mean with its
 * 95% interval (t, one degree of freedom fewer than the starts counted), and a verdict against the
 * target (1.10×): met when both intervals lie above it, missed when either lies below, undecided otherwise. Rows
 * with a floor also measure, in the same rounds, each stack doing nothing but the row's transport (the read: a
 * `node:http` forwarder on one `http.Agent` and plain reply-from; the federated search: the two fan-out floors of
 * bench/facade.ts) and print each build's features over its own floor, paired, and what fhirgate's features would
 * give on the anchor's floor. A round counts only when fhirgate and the anchor answered and kept their cores at
 * least `BENCH_MIN_BUSY` (default 0.9) busy (below, the load generator was starved), and for the floors only when
 * the floors did too. `BENCH_ROWS` (comma-separated ids) picks rows. `BENCH_FLOOR_WORK_US` makes each floor spend that
 * long per request first (servers/floor-work.ts): its transport's cost in a process that works as a contender does.
 * Before measuring it checks, on each Node, that the builds answer alike (the `facade` workload's checks).
 * `node --import tsx bench/paired.ts --pool <log> ...` puts the starts of earlier runs' logs together per row and Node.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkEverythingParity, EVERYTHING_CONTENDERS, EVERYTHING_SERVERS } from './everything.js';
import { ANCHOR, BENCH_KEY, checkFloors, checkParity, CONTENDERS, FHIRGATE, load, NODE_FANOUT, NODE_PLAIN, PATHS, PLAIN, UNDICI_FANOUT, type Kind } from './facade.js';
import { autocannon, WARMUP_SECONDS } from './host.js';
import { benchNodes, type BenchNode } from './lib/nodes.js';
import { startPeer, type Peer } from './lib/processes.js';
import { geoMean, meanLog, summarize, type GeoMean, type Summary } from './lib/stats.js';

/** The target of every facade row: fhirgate ≥ 1.10× the feature-equal build. */
export const TARGET = 1.1;

/** One server of a row: its name in the tables, its script, the arguments after the upstream's port and the key, and the path it is asked. */
interface Server {
  name: string;
  script: string;
  args: string[];
  path: string;
}

/** One row: fhirgate against the feature-equal build, at one connection count, with each stack's floor where the row has one. */
export interface Row {
  id: string;
  title: string;
  connections: number;
  upstream: 'fixed-fhir.ts' | 'everything-upstream.ts';
  fhirgate: Server;
  anchor: Server;
  /** fhirgate's floor and the anchor's, in that order. */
  floors?: [Server, Server];
  /** Whether the row has the 1.10× target (the `$everything` rows were asked for without one). */
  target: boolean;
}

/** A contender of bench/facade.ts asked `kind`. */
function facadeServer(name: string, kind: Kind): Server {
  const c = CONTENDERS.find((x) => x.name === name)!;
  return { name, script: c.script, args: [], path: PATHS[kind].server };
}
const everythingServer = (name: string): Server => EVERYTHING_SERVERS.find((s) => s.name === name)!;

const facadeRow = (kind: Kind, connections: number): Row => ({
  id: `${kind}-${connections}`,
  title: `${kind === 'read' ? 'read of one Patient' : 'federated search over two sources'}, ${connections} connections`,
  connections,
  upstream: 'fixed-fhir.ts',
  fhirgate: facadeServer(FHIRGATE, kind),
  anchor: facadeServer(ANCHOR, kind),
  floors: kind === 'read' ? [facadeServer(NODE_PLAIN, kind), facadeServer(PLAIN, kind)] : [facadeServer(NODE_FANOUT, kind), facadeServer(UNDICI_FANOUT, kind)],
  target: true,
});
const everythingRow = (cached: boolean): Row => ({
  id: `everything-${cached ? 'cached' : 'uncached'}-16`,
  title: `Patient/$everything over two sources, resolution ${cached ? 'cached' : 'on every request'}, 16 connections`,
  connections: 16,
  upstream: 'everything-upstream.ts',
  fhirgate: everythingServer(cached ? EVERYTHING_CONTENDERS.cached : EVERYTHING_CONTENDERS.uncached),
  anchor: everythingServer(cached ? EVERYTHING_CONTENDERS.anchorCached : EVERYTHING_CONTENDERS.anchorUncached),
  target: false,
});

/** Every row, in the order measured. */
export const ROWS: Row[] = [facadeRow('read', 16), facadeRow('read', 64), facadeRow('federated', 16), facadeRow('federated', 64), everythingRow(true), everythingRow(false)];

/** One server's window in one round. */
interface Window {
  cpu: number;
  rps: number;
  busy: number;
  errors: number;
}
/** One round: each server's window, by name. */
type Round = Record<string, Window>;

/** What one row measured on one Node. */
export interface PairedRow {
  row: Row;
  node: string;
  /** Every start's rounds, in the order measured. */
  starts: Round[][];
  /**
   * Every round of every start; `counted` those in which fhirgate and the anchor both answered and kept their cores at least the
   * minimum busy; `floorRounds` those of them in which the floors did too (a floor does so little that the load
   * generator's core may not keep it busy: its round still counts for the ratio, not for the floors).
   */
  rounds: Round[];
  counted: Round[];
  floorRounds: Round[];
  minBusy: number;
  /**
   * fhirgate ÷ anchor in requests per server CPU-second and in requests per second, over the starts with a counted
   * round (each start's figure the geometric mean of its counted rounds); present with at least two such starts.
   */
  cpu?: GeoMean;
  rps?: GeoMean;
  /** The same CPU ratio over the counted rounds pooled, for the spread within starts (its interval leaves out the spread between them). */
  roundsCpu?: GeoMean;
  /** Each server's CPU µs per request: fhirgate's and the anchor's over `counted`, the floors' over `floorRounds`. */
  cpuOf: Record<string, Summary>;
  errors: number;
}

/** `met`, `missed` or `undecided` against {@link TARGET}, from the two intervals. */
export function verdict(r: PairedRow): string {
  if (!r.row.target) return 'no target';
  if (r.cpu === undefined || r.rps === undefined) return 'fewer than two starts counted';
  if (r.cpu.low >= TARGET && r.rps.low >= TARGET) return 'met';
  if (r.cpu.high < TARGET || r.rps.high < TARGET) return 'missed';
  return 'undecided';
}

/**
 * One start of the row's servers on `node`: started at once and warmed, measured in `rounds` alternating rounds;
 * an odd `start` starts, warms and measures them in the reverse order.
 */
async function measureRow(row: Row, node: BenchNode, upstreamPort: number, rounds: number, seconds: number, start: number): Promise<Round[]> {
  const listed = [row.fhirgate, row.anchor, ...(row.floors ?? [])];
  const servers = start % 2 === 0 ? listed : [...listed].reverse();
  const peers: Peer[] = [];
  try {
    for (const s of servers) peers.push(await startPeer(new URL(`./servers/${s.script}`, import.meta.url), [String(upstreamPort), BENCH_KEY, ...s.args], {}, [], 'server', node.path));
    const urls = servers.map((s, i) => `http://127.0.0.1:${peers[i]!.port}${s.path}`);
    for (const url of urls) autocannon(url, row.connections, WARMUP_SECONDS, { 'x-api-key': BENCH_KEY });
    const out: Round[] = [];
    for (let n = 0; n < rounds; n++) {
      const round: Round = {};
      const order = servers.map((_, i) => i);
      for (const i of n % 2 === 0 ? order : order.reverse()) {
        const m = load(urls[i]!, row.connections, seconds, peers[i]!.child.pid, 0); // warm already: no warm-up window between rounds
        round[servers[i]!.name] = { cpu: m.cpu, rps: m.rps, busy: m.busy, errors: m.errors };
      }
      console.error(`${row.id} ${node.version} start ${start + 1} round ${n + 1}: ${listed.map((s) => `${s.name} ${round[s.name]!.cpu.toFixed(0)} µs ${(round[s.name]!.busy * 100).toFixed(0)}%`).join(', ')}`);
      out.push(round);
    }
    return out;
  } finally {
    for (const p of peers) await p.stop();
  }
}

/** The figures of one row on one Node from its starts' rounds. */
export function pairedRow(row: Row, node: string, starts: Round[][], minBusy: number): PairedRow {
  const builds = [row.fhirgate.name, row.anchor.name];
  const floors = (row.floors ?? []).map((s) => s.name);
  const busy = (r: Round, name: string) => Number.isFinite(r[name]!.cpu) && r[name]!.rps > 0 && r[name]!.busy >= minBusy;
  const countedOf = (rs: Round[]) => rs.filter((r) => builds.every((name) => busy(r, name)));
  const rounds = starts.flat();
  const counted = countedOf(rounds);
  const floorRounds = counted.filter((r) => floors.every((name) => busy(r, name)));
  const cpuOf = (name: string, of: Round[]) => (of.length === 0 ? [] : [[name, summarize(of.map((r) => r[name]!.cpu))] as const]);
  const errors = rounds.reduce((n, r) => n + [...builds, ...floors].reduce((m, name) => m + r[name]!.errors, 0), 0);
  const base = { row, node, starts, rounds, counted, floorRounds, minBusy, cpuOf: Object.fromEntries([...builds.flatMap((n) => cpuOf(n, counted)), ...floors.flatMap((n) => cpuOf(n, floorRounds))]), errors };
  const [f, a] = [row.fhirgate.name, row.anchor.name];
  const cpuRatio = (r: Round) => r[a]!.cpu / r[f]!.cpu;
  const rpsRatio = (r: Round) => r[f]!.rps / r[a]!.rps;
  const roundsCpu = counted.length < 2 ? undefined : geoMean(counted.map(cpuRatio));
  const countedStarts = starts.map(countedOf).filter((c) => c.length > 0);
  if (countedStarts.length < 2) return { ...base, roundsCpu };
  // Each start's figure is the geometric mean of its rounds' ratios.
  const perStart = (ratio: (r: Round) => number) => countedStarts.map((c) => Math.exp(meanLog(c.map(ratio))));
  return { ...base, roundsCpu, cpu: geoMean(perStart(cpuRatio)), rps: geoMean(perStart(rpsRatio)) };
}

/** `BENCH_MIN_BUSY` (default 0.9): the share of its core a counted round's server kept busy at least. */
const minBusySetting = (): number => Number(process.env.BENCH_MIN_BUSY ?? 0.9);

/**
 * Each build's features over its own floor, paired within rounds: fhirgate − its floor and anchor − its floor (CPU µs
 * per request), their ratio, the anchor's floor ÷ fhirgate's, and the ratio fhirgate would give on the anchor's floor
 * (anchor ÷ (anchor's floor + fhirgate's features)). Undefined for a row without floors.
 */
export function overFloors(r: PairedRow): Record<'fhirgateFeatures' | 'anchorFeatures' | 'featuresRatio' | 'floorRatio' | 'onAnchorFloor', Summary> | undefined {
  if (r.row.floors === undefined || r.floorRounds.length === 0) return undefined;
  const [f, a, ff, af] = [r.row.fhirgate.name, r.row.anchor.name, r.row.floors[0].name, r.row.floors[1].name];
  const of = (g: (x: Round) => number) => summarize(r.floorRounds.map(g));
  const features = (x: Round) => x[f]!.cpu - x[ff]!.cpu;
  return {
    fhirgateFeatures: of(features),
    anchorFeatures: of((x) => x[a]!.cpu - x[af]!.cpu),
    featuresRatio: of((x) => (x[a]!.cpu - x[af]!.cpu) / features(x)),
    floorRatio: of((x) => x[af]!.cpu / x[ff]!.cpu),
    onAnchorFloor: of((x) => x[a]!.cpu / (x[af]!.cpu + features(x))),
  };
}

/** The rows `BENCH_ROWS` names (comma-separated ids), all by default; throws on an id that is not a row's. */
export function askedRows(): Row[] {
  const ids = process.env.BENCH_ROWS?.split(',');
  if (ids === undefined) return ROWS;
  const unknown = ids.filter((id) => !ROWS.some((r) => r.id === id));
  if (unknown.length > 0) throw new Error(`BENCH_ROWS: unknown row(s) ${unknown.join(', ')}; rows: ${ROWS.map((r) => r.id).join(', ')}`);
  return ROWS.filter((r) => ids.includes(r.id));
}

/** Every row asked on every Node, after the parity checks. */
export async function benchPaired(rows: Row[] = askedRows(), nodes: BenchNode[] = benchNodes()): Promise<PairedRow[]> {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const starts = Number(process.env.BENCH_STARTS ?? 4);
  if (!Number.isInteger(starts) || starts < 2) throw new Error(`BENCH_STARTS must be a whole number of at least 2 (the interval is over starts), not "${process.env.BENCH_STARTS}"`);
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const minBusy = minBusySetting();
  const upstreams = new Map<string, Peer>();
  const out: PairedRow[] = [];
  try {
    for (const script of new Set(rows.map((r) => r.upstream))) upstreams.set(script, await startPeer(new URL(`./servers/${script}`, import.meta.url), [], {}, [], 'client'));
    const fixed = upstreams.get('fixed-fhir.ts');
    const everything = upstreams.get('everything-upstream.ts');
    for (const node of nodes) {
      if (fixed !== undefined) await checkParity(node, fixed.port);
      if (fixed !== undefined) await checkFloors(node, fixed.port);
      if (everything !== undefined) await checkEverythingParity(node, everything.port);
    }
    const measured = new Map<string, Round[][]>(rows.flatMap((row) => nodes.map((node) => [`${row.id} ${node.version}`, []] as const)));
    for (let start = 0; start < starts; start++) {
      for (const row of rows) {
        for (const node of start % 2 === 0 ? nodes : [...nodes].reverse()) {
          measured.get(`${row.id} ${node.version}`)!.push(await measureRow(row, node, upstreams.get(row.upstream)!.port, rounds, seconds, start));
        }
      }
    }
    for (const row of rows) {
      for (const node of nodes) {
        const r = pairedRow(row, node.version, measured.get(`${row.id} ${node.version}`)!, minBusy);
        console.error(`${row.id} ${node.version}: ${describe(r)}\n${JSON.stringify({ row: row.id, node: node.version, starts: r.starts })}`);
        out.push(r);
      }
    }
  } finally {
    for (const p of upstreams.values()) await p.stop();
  }
  return out;
}

const x = (n: number) => `${n.toFixed(2)}×`;
/** `1.07× (0.98–1.17)`. */
export const interval = (g: GeoMean | undefined) => (g === undefined ? '–' : `${x(g.mean)} (${x(g.low)}–${x(g.high)})`);
/** One line: both ratios and the verdict. */
export function describe(r: PairedRow): string {
  const startsCounted = r.cpu?.values.length ?? 0;
  return `requests per CPU-second ${interval(r.cpu)}, requests per second ${interval(r.rps)}, over ${startsCounted} of ${r.starts.length} starts (${r.counted.length} of ${r.rounds.length} rounds counted${r.row.floors === undefined ? '' : `, ${r.floorRounds.length} with the floors too`}; pooled rounds ${interval(r.roundsCpu)}): ${verdict(r)}`;
}

/**
 * `--pool <log> ...`: the rows of earlier runs, from the JSON line each run logs per row and Node (`{row, node, starts}`,
 * or `{row, node, rounds}` from before the starts: one start), their starts put together per row and Node and
 * described as one run would be.
 */
function pooled(files: string[]): PairedRow[] {
  const byRow = new Map<string, { row: Row; node: string; starts: Round[][] }>();
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.startsWith('{"row"')) continue;
      const logged = JSON.parse(line) as { row: string; node: string; starts?: Round[][]; rounds?: Round[] };
      const row = ROWS.find((r) => r.id === logged.row);
      if (row === undefined) throw new Error(`--pool: unknown row ${logged.row} in ${file}`);
      const key = `${logged.row} ${logged.node}`;
      if (!byRow.has(key)) byRow.set(key, { row, node: logged.node, starts: [] });
      byRow.get(key)!.starts.push(...(logged.starts ?? [logged.rounds!]));
    }
  }
  return [...byRow.values()].map((p) => pairedRow(p.row, p.node, p.starts, minBusySetting()));
}

/** Run alone: one line per row and Node, then the rounds as JSON; with `--pool`, earlier runs' rows put together. */
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--pool') {
  for (const r of pooled(process.argv.slice(3))) console.log(`${r.row.id}, Node ${r.node}: ${describe(r)}`);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const measured = await benchPaired();
  for (const r of measured) console.log(`${r.row.id}, Node ${r.node}: ${describe(r)}`);
  console.log(JSON.stringify(measured.map((r) => ({ row: r.row.id, node: r.node, starts: r.starts }))));
}
