/**
 * `npm run scale-test`: what operators meet, under load, counted by a client that sees connection-level
 * failures (test/support/load-client.ts; autocannon does not count a connection closed without an
 * answer). Three fhirgate host processes on loopback behind Debian's HAProxy (checks on `/health/ready`):
 * one gets SIGTERM, SIGKILL (with HAProxy's retries of safe methods, and without any), or SIGSTOP; then
 * a `serveCluster` of two workers gets SCALE_RESTARTS (default 10) SIGHUPs and a SIGTERM; two replicas
 * sharing a `redis-server` through `redisStore` see it stopped for SCALE_REDIS_OUTAGE_MS (default 4000),
 * then hung (SIGSTOP) for as long. Each replica case lasts SCALE_SECONDS (default 15; the Redis case's
 * phases half of it each). SCALE_ONLY (`replicas`,
 * `cluster`, `redis`, comma-separated) runs some cases and prints them without writing bench/SCALE.md.
 * Writes bench/SCALE.md; exit code 1 when a case that must lose nothing did, or a docs claim did not hold.
 * Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { findBinary } from '../test/support/system-binary.js';
import { answered, failures } from '../test/support/load-client.js';
import { clusterCases, PATH, replicaCase } from './scale/cases.js';
import type { CaseResult } from './scale/cases.js';
import { redisOutageCase } from './scale/redis-outage.js';

const seconds = Number(process.env['SCALE_SECONDS'] ?? 15);
const restarts = Number(process.env['SCALE_RESTARTS'] ?? 10);
const drainMs = Number(process.env['READINESS_DRAIN_MS'] ?? 1000);
const outageMs = Number(process.env['SCALE_REDIS_OUTAGE_MS'] ?? 4000);
const only = process.env['SCALE_ONLY']?.split(',').map((s) => s.trim());
const runs = (group: string) => only === undefined || only.includes(group);

const bin = findBinary('haproxy');
if (bin === undefined) {
  console.error('haproxy is not installed: apt-get install -y haproxy');
  process.exit(1);
}
const haproxyVersion = (spawnSync(bin, ['-v'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? '').replace(/ - https?:.*$/, '');
const loadBefore = loadavg().map((n) => n.toFixed(1)).join(', ');
const started = new Date();

/** Cases that must lose nothing; the one without retries shows what the retries are for. */
const mustBeZero = new Set<string>();
const results: CaseResult[] = [];
/** Docs claims a case found not to hold. */
const violations: string[] = [];
const run = async (zero: boolean, make: () => Promise<CaseResult | CaseResult[]>) => {
  const made = await make();
  for (const r of Array.isArray(made) ? made : [made]) {
    results.push(r);
    if (zero) mustBeZero.add(r.name);
    violations.push(...(r.violations ?? []).map((v) => `${r.name}: ${v}`));
    console.log(`${r.name}: ${r.loads.map(([n, c]) => `${n} ${failures(c)} failed of ${c.sent}`).join('; ')}`);
  }
};

if (runs('replicas')) {
  await run(true, () => replicaCase(bin, { name: 'SIGTERM', signal: 'SIGTERM', seconds, drainMs, haproxy: {}, what: `r1 drains (\`readinessDrainMs\` ${drainMs}) and exits; started again halfway` }));
  await run(true, () => replicaCase(bin, { name: 'SIGKILL, retries of safe methods', signal: 'SIGKILL', seconds, drainMs, haproxy: {}, what: 'r1 is killed; HAProxy retries GET/HEAD/OPTIONS on another server (`retry-on conn-failure empty-response response-timeout`)' }));
  await run(false, () => replicaCase(bin, { name: 'SIGKILL, no retries', signal: 'SIGKILL', seconds, drainMs, haproxy: { retries: false }, what: 'the same without `retry-on`: what a kill costs without retries' }));
  await run(true, () => replicaCase(bin, { name: 'SIGSTOP', signal: 'SIGSTOP', seconds, drainMs, haproxy: { serverTimeoutMs: 2000 }, what: 'r1 is frozen (SIGSTOP) until halfway (SIGCONT); `timeout server 2s` so that `response-timeout` retries the requests it holds' }));
}
if (runs('cluster')) await run(true, () => clusterCases(2, restarts));
// CDS refusals (503) while Redis is away are what the docs promise, so this case is judged by its claims.
if (runs('redis')) await run(false, () => redisOutageCase({ seconds: Math.max(6, Math.round(seconds / 2)), outageMs, commandTimeoutMs: 500 }));

const row = (r: CaseResult, [name, counts]: CaseResult['loads'][number]) => {
  const non2xx = Object.entries(counts.status).filter(([s]) => !s.startsWith('2')).map(([s, n]) => `${n}×${s}`).join(' ') || '0';
  const other = Object.entries(counts.errors).map(([e, n]) => `${n}×${e}`).join(' ') || '0';
  return `| ${r.name} | ${name} | ${counts.sent.toLocaleString('en')} | ${answered(counts).toLocaleString('en')} | **${failures(counts)}** | ${counts.reset} | ${counts.closedWithoutAnswer} | ${counts.timedOut} | ${non2xx} | ${other} | ${counts.refused} |`;
};
const md = `# Scale test: restarts, kills, freezes and a Redis outage under load

\`npm run scale-test\` (\`bench/scale-test.ts\`, \`bench/scale/\`). The load is fhirgate's own client
(\`test/support/load-client.ts\`, \`node:http\`): 8 loops on keep-alive connections and 4 loops opening a
connection per request, GET \`${PATH}\` (a transform handler answering a cached Patient), each request
counted once as answered (by status), **reset**, **closed without an answer**, **timed out** (10 s),
another error, or **refused** (nothing listening: the request never reached a server). *Failed* is every
one of these but refusals. Replica cases: three host processes (\`bench/servers/scale-replica.ts\`,
\`readinessDrainMs\` ${drainMs}) behind Debian's HAProxy (round robin, \`option httpchk GET /health/ready\`
every 100 ms with 2 s to answer, down after 2 failures, up after 2 passes, \`retries 3\`, \`option redispatch 1\`, \`retry-on
conn-failure empty-response response-timeout\`, and \`http-request disable-l7-retry unless METH_GET ||
METH_HEAD || METH_OPTIONS\`: only safe methods are sent twice), ${seconds} s of load each; r1 gets the signal
a third of the way in and is back halfway. Cluster cases: \`bench/servers/scale-cluster.ts\`
(\`serveCluster\`, 2 workers) with no load balancer in front. The Redis case: two replicas
(\`bench/servers/scale-redis-replica.ts\`) sharing one Debian \`redis-server\` through \`redisStore\`, read
straight (no balancer) and sent CDS calls, while Redis is stopped for ${(outageMs / 1000).toFixed(1)} s, and later hung (SIGSTOP) for as long; it is judged by
the claims of docs/events.md, each listed with *holds* or **does not hold**.

**Which routes are safe to retry**: every GET and HEAD route (transform, aggregate, \`/fhir/metadata\`,
\`/fhir/status\`, \`/health\`, \`/health/ready\`, \`/gateway/status\`, \`/metrics\`, \`/docs\`,
\`/openapi.json\`, \`GET /notereader/?wsdl\`, \`GET /cds/cds-services\`) and OPTIONS (CORS preflights): they
change nothing upstream (a read of a FHIR server; its events are emitted again). The POST routes are not:
a CDS Hooks service call or feedback (\`POST /cds/cds-services/…\`) and NoteReader \`ProcessDocument\` (\`POST
/notereader/\`) may have run before the connection broke, and custom POST/PUT/DELETE routes are yours to
judge. HAProxy's \`disable-l7-retry\` above keeps them to one attempt: a killed replica can fail them.

## Last run: ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC

Machine: ${cpus().length} shared cores (${cpus()[0]?.model ?? 'unknown'}), **loaded by other work**: load average
${loadBefore} (1, 5, 15 min) at the start and ${loadavg().map((n) => n.toFixed(1)).join(', ')} at the end, so request rates and times here say nothing about speed; the counts
of failures are what this run is for. Node ${process.version}, ${haproxyVersion}.

| case | load | sent | answered | failed | reset | closed, no answer | timed out | non-2xx | other | refused |
|---|---|---|---|---|---|---|---|---|---|---|
${results.flatMap((r) => r.loads.map((l) => row(r, l))).join('\n')}

${results.map((r) => `### ${r.name}\n\n${r.what}.${Object.keys(r.figures).length > 0 ? `\n\n${Object.entries(r.figures).map(([k, v]) => `- ${k}: ${v}`).join('\n')}` : ''}\n\n${r.events.map((e) => `- ${e}`).join('\n')}\n`).join('\n')}
`;
if (only === undefined) writeFileSync(new URL('./SCALE.md', import.meta.url), md);
console.log(`\n${md}`);
// A case that checks claims (its `violations`) is judged by them, not by a count of 0.
const bad = results.filter((r) => r.violations === undefined && mustBeZero.has(r.name) && r.loads.some(([, c]) => failures(c) > 0));
for (const v of violations) console.error(`a docs claim did not hold: ${v}`);
process.exit(bad.length === 0 && violations.length === 0 ? 0 : 1);
