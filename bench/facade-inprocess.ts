/**
 * `node --import tsx bench/facade-inprocess.ts <tree A> <tree B>`: the facade's own CPU per request of two
 * source trees (`/work/main` and a worktree), in one process, with no socket: each tree's `FHIRFacade`
 * over a gateway whose `exchange` answers at once with the bytes `servers/fixed-fhir.ts` sends (the
 * federated rows' searchset Bundle per source, the fixed Patient for a read), its route handler called
 * directly, the AuditEvents delivered to a `fhir.audit` handler (`NO_AUDIT=1`: no dispatcher, none
 * built). Rounds of `N` requests (default 1500) alternate A and B (`ROUNDS` pairs, default 16, after three
 * pairs of warm-up; the order flips each pair), each timed by `process.cpuUsage()`; prints both medians
 * and the median and range of A/B per pair. Both trees' answers are compared first (page tokens aside).
 * What it leaves out (the host, the HTTP client and server) is what `/tmp/fab.sh`-style pinned runs add;
 * on a shared machine this is the measure that holds still. `PROFILE_PATH` (default
 * `/all/Patient?family=Benchmark`, under `/fhir`) picks the request, `SCOPES` the caller's scopes.
 */
import { FIXED_PATIENT, searchBundle, SEARCH_BASES } from './servers/fixed-patient.js';

const UPSTREAM = 'http://127.0.0.1:39999';
const KEY = 'bench-caller-key-0123456789';
const bodies = new Map(Object.entries(SEARCH_BASES).map(([s, b]) => [s, Buffer.from(searchBundle(`${UPSTREAM}${b}`))]));
const patient = Buffer.from(FIXED_PATIENT);
const PATH = process.env.PROFILE_PATH ?? '/all/Patient?family=Benchmark';

type Once = () => Promise<string>;

/** One request of `PATH` to the facade of the tree at `root`, as a function. */
async function facadeOf(root: string): Promise<Once> {
  const { AsyncFHIRGateway, LocalEventDispatcher } = await import(`${root}/src/index.ts`);
  const { FHIRFacade } = await import(`${root}/src/facade/index.ts`);
  const { MOUNT } = await import(`${root}/src/mount/index.ts`);
  const gw = new AsyncFHIRGateway({ maxConnections: 64 });
  for (const [source, base] of Object.entries(SEARCH_BASES)) gw.addSource(source, `fhir://127.0.0.1:39999${base}/`);
  gw.exchange = async (source: string, request: { path: string }) =>
    request.path.includes('/Patient/')
      ? { status: 200, headers: { 'content-type': 'application/fhir+json', etag: 'W/"1"' }, body: patient }
      : { status: 200, headers: { 'content-type': 'application/fhir+json' }, body: bodies.get(source)! };
  const dispatcher = new LocalEventDispatcher();
  dispatcher.register('fhir.audit', () => {});
  const facade = new FHIRFacade(gw, { callers: [{ name: 'bench', apiKey: KEY, sources: Object.keys(SEARCH_BASES), scopes: process.env.SCOPES ?? 'system/Patient.rs' }] });
  const mount = facade[MOUNT]();
  mount.useEvents(process.env.NO_AUDIT ? null : dispatcher);
  const url = new URL(`http://127.0.0.1:40000/fhir${PATH}`);
  const segments = url.pathname.split('/').slice(2);
  const route = mount.routes().find((r: { method: string; path: string }) => r.method === 'GET' && r.path.split('/').length - 1 === segments.length);
  const names = ['source', 'a', 'b', 'c', 'd'];
  const signal = new AbortController().signal;
  const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
  const request = () => ({
    method: 'GET', params: Object.assign(Object.create(null), Object.fromEntries(segments.map((s, i) => [names[i], s]))), query: new URLSearchParams(url.search),
    headers: { 'x-api-key': KEY, host: '127.0.0.1:40000', accept: '*/*' }, get url() { return new URL(url.href); }, baseUrl: 'http://127.0.0.1:40000/fhir', requestId: 'r1',
    remoteAddress: '127.0.0.1', signal, connectionSignal: signal, log: silent, bytes: async () => Buffer.alloc(0), chunks: async function* () {},
  });
  return async () => {
    const reply = await route.handle(request());
    if (reply.status !== undefined && reply.status !== 200) throw new Error(`${root}: ${reply.status} ${String(reply.body)}`);
    return String(reply.body);
  };
}

/** CPU µs per request over `n` requests (a turn of the event loop every 16, as a server's would be: the audit drains there). */
async function round(once: Once, n: number): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    await once();
    if (i % 16 === 15) await new Promise(setImmediate);
  }
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / n;
}

const median = (x: readonly number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)]!;

if (import.meta.url === `file://${process.argv[1]}`) {
  const [rootA, rootB] = process.argv.slice(2);
  if (rootA === undefined || rootB === undefined) throw new Error('usage: node --import tsx bench/facade-inprocess.ts <tree A> <tree B>');
  const [a, b] = [await facadeOf(rootA), await facadeOf(rootB)];
  const withoutTokens = (s: string) => s.replace(/_page_token=[^"]*/g, '');
  if (withoutTokens(await a()) !== withoutTokens(await b())) throw new Error('the two trees answer differently');
  const n = Number(process.env.N ?? 1500);
  for (let i = 0; i < 3; i++) for (const f of [a, b]) await round(f, n);
  const [ra, rb]: number[][] = [[], []];
  for (let i = 0; i < Number(process.env.ROUNDS ?? 16); i++) {
    if (i % 2 === 0) [ra[i], rb[i]] = [await round(a, n), await round(b, n)];
    else [rb[i], ra[i]] = [await round(b, n), await round(a, n)];
  }
  const ratios = ra.map((x, i) => x / rb[i]!);
  console.log(`${process.version} ${PATH}${process.env.NO_AUDIT ? ' (no audit)' : ''}: A ${median(ra).toFixed(1)} B ${median(rb).toFixed(1)} µs/request; A/B median ${median(ratios).toFixed(3)}, range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)} (${ra.length} pairs)`);
}
