/**
 * The accept ramp of a cluster: how long until every one of CONNECTIONS (default 1,000) keep-alive
 * connections opened at once against `serveCluster` has had an answer, while all of them keep sending
 * (a closed loop, as the soak's load does). The cluster is bench/lib/ramp-cluster.ts in a process of its
 * own (WORKERS, REUSE_PORT, WORK_MS as there). The soak (bench/soak.ts) found 15–32 s for 1,000 connections
 * on one Node 20 process: libuv accepts one connection per event-loop iteration of a saturated process.
 *
 * Run: `node --import tsx bench/cluster-ramp.ts` (needs `npm --prefix bench ci` once, for autocannon); for
 * `reusePort` with `net.ipv4.tcp_migrate_req=1`, inside a network namespace of your own:
 * `ip netns add ramp && ip -n ramp link set lo up && ip netns exec ramp sysctl -w net.ipv4.tcp_migrate_req=1 &&
 * ip netns exec ramp node --import tsx bench/cluster-ramp.ts`. It prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const connections = Number(process.env['CONNECTIONS'] ?? 1000);
/** The ramp is given up on after this long. */
const LIMIT_SECONDS = 60;

const script = fileURLToPath(new URL('./lib/ramp-cluster.ts', import.meta.url));
const load = loadavg()[0]!;
const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
const lines = () => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
const port = await new Promise<number>((resolve, reject) => {
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const ready = lines().find((l) => l['msg'] === 'ramp cluster ready');
    if (ready !== undefined) resolve(ready['port'] as number);
  });
  child.once('exit', (code) => reject(new Error(`the cluster exited with ${code}: ${out}`)));
});
const starting = lines().find((l) => l['msg'] === 'cluster starting') ?? {};

const answeredBy = new Set<unknown>();
let rampSeconds: number | undefined;
const started = performance.now();
const run = autocannon({ url: `http://127.0.0.1:${port}/work`, connections, duration: LIMIT_SECONDS, timeout: LIMIT_SECONDS });
run.on('response', (client: unknown) => {
  answeredBy.add(client);
  if (rampSeconds === undefined && answeredBy.size === connections) {
    rampSeconds = (performance.now() - started) / 1000;
    // A moment of the full load after the ramp, then stop.
    setTimeout(() => run.stop(), 1_000);
  }
});
const result = await run;
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
console.log(JSON.stringify({
  node: process.versions.node,
  connections,
  workers: Number(process.env['WORKERS'] ?? 2),
  reuse_port: starting['reuse_port'],
  reuse_port_reason: starting['reuse_port_reason'],
  tcp_migrate_req: starting['tcp_migrate_req'],
  load_average_at_start: Number(load.toFixed(2)),
  ramp_seconds: rampSeconds === undefined ? `not all answered within ${LIMIT_SECONDS} s (${answeredBy.size})` : Number(rampSeconds.toFixed(1)),
  requests: result.requests.total,
  errors: result.errors + result.timeouts + result.non2xx,
}));
