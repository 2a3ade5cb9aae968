/**
 * `npm run scale-test`: three fhirgate host processes on loopback behind Debian's HAProxy (health checks on
 * `/health/ready`), loaded through HAProxy with autocannon (its own process) for SCALE_SECONDS (default
 * 30). A third of the way in, one replica gets SIGTERM; halfway, it is started again on its port. Prints
 * and writes to bench/SCALE.md: requests sent, answered and failed, the split per replica (HAProxy's
 * counters), RSS per replica, and what HAProxy saw at the SIGTERM and at the restart. Exit code 1 when a
 * request failed. Not part of `npm test`.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHaproxy } from '../test/support/haproxy.js';
import type { ServerStat } from '../test/support/haproxy.js';
import { findBinary } from '../test/support/system-binary.js';

const require = createRequire(import.meta.url);
const seconds = Number(process.env['SCALE_SECONDS'] ?? 30);
const connections = Number(process.env['SCALE_CONNECTIONS'] ?? 32);
const drainMs = Number(process.env['READINESS_DRAIN_MS'] ?? 1000);
const REPLICA = fileURLToPath(new URL('./servers/scale-replica.ts', import.meta.url));
const started = performance.now();
const at = () => `${((performance.now() - started) / 1000).toFixed(2)} s`;
const events: string[] = [];
const note = (line: string) => {
  events.push(`${at()}: ${line}`);
  console.log(`[${at()}] ${line}`);
};

interface Replica {
  name: string;
  port: number;
  child: ChildProcess;
}

async function startReplica(name: string, port = 0): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', 'tsx', REPLICA], { env: { ...process.env, PORT: String(port), READINESS_DRAIN_MS: String(drainMs) }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.setEncoding('utf8');
  for await (const chunk of child.stdout! as AsyncIterable<string>) {
    out += chunk;
    const match = /listening (\d+)/.exec(out);
    if (match) return { name, port: Number(match[1]), child };
  }
  throw new Error(`replica ${name} exited before it listened`);
}

function rss(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

const haproxyBin = findBinary('haproxy');
if (haproxyBin === undefined) {
  console.error('haproxy is not installed: apt-get install -y haproxy');
  process.exit(1);
}
const haproxyVersion = (spawnSync(haproxyBin, ['-v'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? '').replace(/ - https?:.*$/, '');
const load = loadavg()[0]!.toFixed(1);

const replicas = await Promise.all(['r1', 'r2', 'r3'].map((name) => startReplica(name)));
const lb = await startHaproxy(haproxyBin, replicas);
await Promise.all(replicas.map((r) => lb.waitForStatus(r.name, 'UP')));
note(`3 replicas UP in HAProxy (ports ${replicas.map((r) => r.port).join(', ')}); load starts: ${connections} connections, ${seconds} s`);

// HAProxy's view of each replica, every 50 ms, to log status changes.
let watching = true;
const statuses: Record<string, string> = {};
const watcher = (async () => {
  while (watching) {
    const stats = await lb.stats();
    for (const [name, s] of Object.entries(stats)) {
      if (statuses[name] !== undefined && statuses[name] !== s.status) note(`HAProxy: ${name} ${statuses[name]} -> ${s.status} (last check ${s.checkStatus} ${s.checkCode || ''})`.trim());
      statuses[name] = s.status;
    }
    await sleep(50);
  }
})();

const autocannon = spawn(process.execPath, [require.resolve('autocannon/autocannon.js'), '-j', '-c', String(connections), '-d', String(seconds), `${lb.url}/fhir/transform/Patient/scale-1`], { stdio: ['ignore', 'pipe', 'ignore'] });
let report = '';
autocannon.stdout!.setEncoding('utf8');
autocannon.stdout!.on('data', (c: string) => (report += c));
const loadDone = once(autocannon, 'exit');
const loadStarted = performance.now();

await sleep((seconds * 1000) / 3);
const victim = replicas[0]!;
const rssBefore = rss(victim.child.pid!);
note(`SIGTERM to ${victim.name} (pid ${victim.child.pid})`);
victim.child.kill('SIGTERM');
const [code] = await once(victim.child, 'exit');
note(`${victim.name} exited with code ${code} (readinessDrainMs ${drainMs})`);
await sleep(Math.max(0, (seconds * 1000) / 2 - (performance.now() - loadStarted)));
replicas[0] = await startReplica(victim.name, victim.port);
note(`${victim.name} started again on port ${victim.port} (pid ${replicas[0].child.pid})`);

await loadDone;
const final = await lb.stats();
const memory = Object.fromEntries(replicas.map((r) => [r.name, rss(r.child.pid!)]));
watching = false;
await watcher;
await lb.close();
for (const r of replicas) r.child.kill('SIGTERM');
await Promise.all(replicas.map((r) => (r.child.exitCode === null ? once(r.child, 'exit') : undefined)));

const result = JSON.parse(report) as { requests: { sent: number; total: number; average: number }; errors: number; timeouts: number; non2xx: number; '2xx': number; latency: { p50: number; p99: number } };
const failed = result.errors + result.timeouts + result.non2xx;
const answered = result['2xx'];
const split = (s: ServerStat | undefined) => s?.hrsp2xx ?? 0;
const total = replicas.reduce((n, r) => n + split(final[r.name]), 0);
const retried = Object.values(final).reduce((n, s) => n + s.wretr + s.wredis, 0);
const errorsSeen = Object.values(final).reduce((n, s) => n + s.econ + s.eresp + s.hrsp5xx, 0);

const rows = replicas.map((r) => {
  const s = final[r.name];
  const m = memory[r.name]!;
  const share = total === 0 ? 0 : (100 * split(s)) / total;
  return `| ${r.name} | ${split(s).toLocaleString('en')} | ${share.toFixed(1)} % | ${m.rssMiB.toFixed(1)} MiB | ${m.peakMiB.toFixed(1)} MiB |`;
});
const md = `# Scale test: 3 replicas behind HAProxy

\`npm run scale-test\` (\`bench/scale-test.ts\`): three fhirgate host processes on loopback (\`bench/servers/scale-replica.ts\`:
the transform endpoint answering a cached Patient, \`readinessDrainMs\` ${drainMs}), Debian's HAProxy in front (round
robin, \`option httpchk GET /health/ready\` every 100 ms, down after 2 failed checks, up after 2 good ones,
\`retry-on conn-failure empty-response response-timeout\` with redispatch), autocannon in its own process through
HAProxy. A third of the way into the load, replica r1 gets SIGTERM; halfway it is started again on the same port.
Replicas run the TypeScript sources through \`tsx\` (which adds to their RSS). Not part of \`npm test\`.

## Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC

Machine: ${cpus().length} shared cores (${cpus()[0]?.model ?? 'unknown'}), load average ${load} before the run, Node ${process.version}, ${haproxyVersion}.

| figure | value |
|---|---|
| connections, duration | ${connections}, ${seconds} s |
| requests sent | ${result.requests.sent.toLocaleString('en')} |
| answered (2xx) | ${answered.toLocaleString('en')} |
| failed (errors + time-outs + non-2xx) | ${failed} (errors ${result.errors}, time-outs ${result.timeouts}, non-2xx ${result.non2xx}) |
| in flight when the load stopped | ${(result.requests.sent - answered - failed).toLocaleString('en')} |
| requests per second (mean) | ${Math.round(result.requests.average).toLocaleString('en')} |
| latency p50 / p99 | ${result.latency.p50} ms / ${result.latency.p99} ms |
| HAProxy retries + redispatches | ${retried} |
| HAProxy connection/response errors + 5xx | ${errorsSeen} |

Split per replica (HAProxy's 2xx counter per server; r1's spans both of its processes), and memory of each
process at the end (r1: the restarted process; before the SIGTERM the first r1 had ${rssBefore.rssMiB.toFixed(1)} MiB RSS):

| replica | answered | share | RSS | peak RSS |
|---|---|---|---|---|
${rows.join('\n')}

What happened (times from the start of the script):

${events.map((e) => `- ${e}`).join('\n')}
`;
writeFileSync(new URL('./SCALE.md', import.meta.url), md);
console.log(`\n${md}`);
process.exit(failed === 0 ? 0 : 1);
