/**
 * The Redis-outage case of `npm run scale-test`: two replica processes (bench/servers/scale-redis-replica.ts)
 * share one Debian `redis-server` (append-only file on, as docs/events.md advises for the replay store)
 * for the gateway's tokens and the CDS `jti` replay check; under load, Redis is stopped for a few seconds
 * and started again. What the outside client sees is counted per kind of request, with latencies and
 * the token requests the sandbox got, and checked against what docs/events.md claims.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../src/sandbox/index.js';
import { startRedisServer } from '../../test/support/bus-servers.js';
import { startCdsClient } from '../../test/support/cds-client.js';
import type { CdsClient } from '../../test/support/cds-client.js';
import { runLoad } from '../../test/support/load-client.js';
import type { LoadCounts, LoadRequest, LoadSample } from '../../test/support/load-client.js';
import type { CaseResult } from './cases.js';
import { stopProcess } from './processes.js';

const REPLICA = fileURLToPath(new URL('../servers/scale-redis-replica.ts', import.meta.url));
/** The audience every replica checks client JWTs against (its `publicUrl` + the service's path). */
const AUDIENCE = 'https://cds.example.org/cds/cds-services/svc';
/** Short tokens, so that every replica refreshes (and asks the store) during the outage. */
const TOKEN_SECONDS = 2;
/** When the token manager refreshes a token of TOKEN_SECONDS (10 % before its end). */
const REFRESH_MS = TOKEN_SECONDS * 900;

/** Options of the case. */
export interface RedisOutageCase {
  /** Load before Redis stops, and with the store shared again after it is back, in seconds each. */
  readonly seconds: number;
  /** How long Redis stays stopped, in ms; it is then hung (SIGSTOP) for as long, a while after it came back. */
  readonly outageMs: number;
  /** `redisStore`'s `commandTimeoutMs` in the replicas. */
  readonly commandTimeoutMs: number;
}

interface RedisReplica {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  redisErrors: number;
  readonly warnings: string[];
}

async function startReplica(name: string, env: Record<string, string>): Promise<RedisReplica> {
  const child = spawn(process.execPath, ['--import', 'tsx', REPLICA], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const replica = { name, child, url: '', redisErrors: 0, warnings: [] as string[] };
  let rest = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`replica ${name} exited before it listened (${code ?? signal})`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      for (const part of parts) {
        const fields = JSON.parse(part) as { listening?: number; redisError?: string; warning?: string };
        if (fields.redisError !== undefined) replica.redisErrors += 1;
        if (fields.warning !== undefined) replica.warnings.push(fields.warning);
        if (fields.listening !== undefined) resolve(Object.assign(replica, { url: `http://127.0.0.1:${fields.listening}` }));
      }
    });
  });
}

/** A CDS patient-view call with a fresh client JWT (a new `jti`), or with `token`. */
function cdsCall(ehr: CdsClient, token = ehr.token(AUDIENCE)): LoadRequest {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ hook: 'patient-view', hookInstance: randomUUID(), context: { userId: 'Practitioner/1', patientId: 'scale-1' } }),
  };
}

/** One request, its status. */
async function callOnce(url: string, what: LoadRequest): Promise<number> {
  const response = await fetch(url, { method: what.method, headers: what.headers, body: what.body });
  await response.arrayBuffer();
  return response.status;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** p50/p99/max of the samples that started in [from, to) (and ended before `endBy`), and how they ended. */
function window(samples: readonly LoadSample[], from: number, to: number, endBy = Infinity): string {
  const inside = samples.filter((s) => s.at >= from && s.at < to && s.at + s.ms < endBy);
  if (inside.length === 0) return 'no request';
  const ms = inside.map((s) => s.ms).sort((a, b) => a - b);
  const outcomes: Record<string, number> = {};
  for (const s of inside) {
    const key = s.error ?? `${s.status}${s.retryAfter === undefined ? '' : ` (Retry-After ${s.retryAfter})`}`;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  }
  const how = Object.entries(outcomes).map(([k, n]) => `${n}× ${k}`).join(', ');
  return `${inside.length} requests (${how}); p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, max ${ms.at(-1)!.toFixed(0)} ms`;
}

const load = () => loadavg().map((n) => n.toFixed(1)).join(', ');

/**
 * Runs the case. `violations` in the result name every docs claim the run contradicted (empty: none).
 */
export async function redisOutageCase(c: RedisOutageCase): Promise<CaseResult & { violations: string[] }> {
  const cleanups: Array<() => unknown> = [];
  const context = { after: (fn: () => unknown) => void cleanups.push(fn), skip: (message?: string) => { throw new Error(message); } };
  const events: string[] = [];
  const started = performance.now();
  const note = (text: string) => {
    const stamp = `${((performance.now() - started) / 1000).toFixed(2)} s`;
    events.push(`${stamp}: ${text}`);
    console.log(`  [${stamp}] ${text}`);
  };
  const violations: string[] = [];
  const check = (ok: boolean, claim: string) => {
    if (!ok) violations.push(claim);
    return ok ? 'holds' : '**does not hold**';
  };
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-scale-redis-'));
  try {
    const redis = (await startRedisServer(context, { appendOnlyDir: dir }))!;
    const sandbox = await startSandbox({ tokenLifetimeSeconds: TOKEN_SECONDS, seed: [{ resourceType: 'Patient', id: 'scale-1' }] });
    cleanups.push(() => sandbox.close());
    const ehr = await startCdsClient(context);
    const env = { REDIS_URL: redis.url, SOURCE: sandbox.connectionString(), CDS_ISSUER: ehr.issuer, CDS_JWKS_URL: ehr.jwksUrl, COMMAND_TIMEOUT_MS: String(c.commandTimeoutMs) };
    const replicas = [await startReplica('r1', env), await startReplica('r2', env)];
    cleanups.push(() => Promise.all(replicas.map((r) => stopProcess(r.child))));
    note(`2 replicas sharing redis-server (append-only file on), redisStore commandTimeoutMs ${c.commandTimeoutMs}, ${TOKEN_SECONDS} s tokens; load for ${c.seconds} s (load average ${load()})`);

    const reads = { keepAlive: [] as LoadSample[], perRequest: [] as LoadSample[], cds: [] as LoadSample[] };
    const stop = new AbortController();
    const sum = (counts: LoadCounts[]): LoadCounts => counts.reduce((a, b) => ({
      sent: a.sent + b.sent,
      status: Object.fromEntries([...new Set([...Object.keys(a.status), ...Object.keys(b.status)])].map((k) => [k, (a.status[k] ?? 0) + (b.status[k] ?? 0)])),
      reset: a.reset + b.reset,
      closedWithoutAnswer: a.closedWithoutAnswer + b.closedWithoutAnswer,
      refused: a.refused + b.refused,
      timedOut: a.timedOut + b.timedOut,
      errors: Object.fromEntries([...new Set([...Object.keys(a.errors), ...Object.keys(b.errors)])].map((k) => [k, (a.errors[k] ?? 0) + (b.errors[k] ?? 0)])),
    }));
    const loads = Promise.all([
      Promise.all(replicas.map((r) => runLoad({ url: `${r.url}/fhir/transform/Patient/scale-1`, connections: 4, keepAlive: true, samples: reads.keepAlive }, stop.signal))).then(sum),
      Promise.all(replicas.map((r) => runLoad({ url: `${r.url}/fhir/transform/Patient/scale-1`, connections: 2, keepAlive: false, samples: reads.perRequest }, stop.signal))).then(sum),
      Promise.all(replicas.map((r) => runLoad({ url: `${r.url}/cds/cds-services/svc`, connections: 1, keepAlive: true, samples: reads.cds, request: () => cdsCall(ehr) }, stop.signal))).then(sum),
    ]);
    const loadStart = performance.now();

    // A token used before the outage: the replay check must still know it after Redis comes back.
    const early = ehr.token(AUDIENCE);
    const earlyFirst = await callOnce(`${replicas[0]!.url}/cds/cds-services/svc`, cdsCall(ehr, early));
    await sleep(Math.max(0, c.seconds * 1000 - (performance.now() - loadStart)));
    const before = { from: performance.now() - c.outageMs };
    const tokensAtStop = sandbox.stats.tokenRequests;
    const down = performance.now();
    await redis.stop();
    note(`redis-server stopped (SIGTERM; load average ${load()}); token requests so far ${tokensAtStop}`);
    await sleep(c.outageMs);
    const restart = performance.now();
    await redis.start();
    const up = performance.now();
    const tokensOutage = sandbox.stats.tokenRequests - tokensAtStop;
    note(`redis-server accepts connections again (started after ${((restart - down) / 1000).toFixed(1)} s, up after ${((up - down) / 1000).toFixed(1)} s); ${tokensOutage} token requests while it was away`);
    await sleep(Math.min(c.outageMs, 3000));
    // From here the store should be shared again: measure over the same length as the outage.
    const settled = performance.now();
    const tokensAtSettled = sandbox.stats.tokenRequests;
    await sleep(c.seconds * 1000);
    const end = performance.now();
    const tokensAfter = sandbox.stats.tokenRequests - tokensAtSettled;
    // A Redis that keeps its connections but answers nothing: only commandTimeoutMs ends a store call.
    redis.pause();
    const hung = performance.now();
    note(`redis-server hung (SIGSTOP; load average ${load()})`);
    await sleep(c.outageMs);
    redis.resume();
    const woke = performance.now();
    const tokensHung = sandbox.stats.tokenRequests - tokensAtSettled - tokensAfter;
    note(`redis-server resumed (SIGCONT) after ${((woke - hung) / 1000).toFixed(1)} s; ${tokensHung} token requests while it was hung`);
    await sleep(2000);
    stop.abort();
    const [keepAlive, perRequest, cdsCounts] = await loads;

    // After the load: a fresh jti is accepted once and refused by the other replica; the early one still refused.
    const token = ehr.token(AUDIENCE);
    const replay = [await callOnce(`${replicas[0]!.url}/cds/cds-services/svc`, cdsCall(ehr, token)), await callOnce(`${replicas[1]!.url}/cds/cds-services/svc`, cdsCall(ehr, token))];
    const earlyAgain = await callOnce(`${replicas[1]!.url}/cds/cds-services/svc`, cdsCall(ehr, early));
    const alive = replicas.every((r) => r.child.exitCode === null && r.child.signalCode === null);
    note(`load stopped (load average ${load()}); replicas alive: ${alive}`);

    const outageReads = [...reads.keepAlive, ...reads.perRequest].filter((s) => s.at >= down && s.at < up);
    const outageCds = reads.cds.filter((s) => s.at >= down && s.at < up);
    const hungReads = [...reads.keepAlive, ...reads.perRequest].filter((s) => s.at >= hung && s.at < woke);
    const hungCds = reads.cds.filter((s) => s.at >= hung && s.at < woke);
    const slowest = (samples: LoadSample[]) => Math.max(0, ...samples.map((s) => s.ms));
    // Calls that ended after the hang began belong to the hang.
    const lastRefusal = Math.max(0, ...reads.cds.filter((s) => s.at >= up && s.at + s.ms < hung && s.status === 503).map((s) => s.at + s.ms - up));
    const readFailures = [...reads.keepAlive, ...reads.perRequest].filter((s) => s.status < 200 || s.status > 299).length;
    const cdsOther = outageCds.filter((s) => !(s.status === 503 && s.retryAfter === '1') && s.status !== 200).length;
    const cdsSlowest = Math.max(0, ...outageCds.filter((s) => s.status === 503).map((s) => s.ms));
    const outageSeconds = (up - down) / 1000;
    const tokenBound = replicas.length * (Math.ceil((up - down) / REFRESH_MS) + 1);
    const sharedBound = Math.ceil((end - settled) / REFRESH_MS) + 1;
    const hungBound = replicas.length * (Math.ceil((woke - hung) / REFRESH_MS) + 1);
    const figures: Record<string, string> = {
      'reads during the outage': window([...reads.keepAlive, ...reads.perRequest], down, up),
      'reads in as long a window before it': window([...reads.keepAlive, ...reads.perRequest], before.from, down),
      'CDS calls during the outage': window(reads.cds, down, up),
      'CDS calls before it': window(reads.cds, before.from, down),
      'CDS calls once Redis was back (ended before the hang)': `${window(reads.cds, settled, end, hung)}; the last 503 ended ${(lastRefusal / 1000).toFixed(1)} s after Redis accepted connections again (the clients reconnect after up to 2 s, their reconnect strategy's longest wait)`,
      [`reads while Redis was hung (${((woke - hung) / 1000).toFixed(1)} s)`]: window([...reads.keepAlive, ...reads.perRequest], hung, woke),
      'CDS calls while it was hung': window(reads.cds, hung, woke),
      'token requests upstream': `${tokensOutage} in the ${outageSeconds.toFixed(1)} s Redis was away (2 replicas on their own: at most ${tokenBound} expected), ${tokensAfter} in the ${((end - settled) / 1000).toFixed(1)} s after it settled (shared again: at most ${sharedBound}), ${tokensHung} while it was hung (at most ${hungBound}); ${tokensAtStop} from the start of the load to the outage (${((down - loadStart) / 1000).toFixed(1)} s, shared, the first fetch included)`,
      "'error' events the replicas' clients emitted (all handled by their listener)": replicas.map((r) => `${r.name} ${r.redisErrors}`).join(', '),
      'process warnings': replicas.map((r) => `${r.name} ${r.warnings.length === 0 ? 'none' : r.warnings.join(' ')}`).join(', '),
      'jti replay after the outage': `a fresh token: ${replay.join(' then ')} (r1 then r2); the token used before the outage, sent again to r2: ${earlyAgain} (first use ${earlyFirst})`,
    };
    const claims: Record<string, string> = {
      'never a crash: both replicas still running': check(alive, 'a replica ended during the Redis outage'),
      'never an unhandled event: no process warning, every client error went to its listener': check(replicas.every((r) => r.warnings.length === 0), 'a replica printed a process warning'),
      'reads go on: every read answered 2xx': check(readFailures === 0 && outageReads.length > 0, `${readFailures} reads failed`),
      'a failing store costs a token fetch per replica (per refresh)': check(tokensOutage >= 1 && tokensOutage <= tokenBound, `${tokensOutage} token requests while Redis was away (bound ${tokenBound})`),
      'the replay check fails closed, fast and clear: CDS calls during the outage are 200 (before Redis went) or 503 with Retry-After: 1': check(outageCds.length > 0 && cdsOther === 0 && outageCds.some((s) => s.status === 503), `${cdsOther} CDS calls during the outage were neither 503 with Retry-After: 1 nor 200`),
      [`no stall: the slowest 503 within 5 s (commandTimeoutMs ${c.commandTimeoutMs}; the machine is loaded)`]: check(cdsSlowest < 5000, `the slowest CDS refusal took ${cdsSlowest.toFixed(0)} ms`),
      'once Redis is back: tokens shared again and a replay refused across replicas': check(tokensAfter <= sharedBound && replay[0] === 200 && replay[1] === 401, `after the outage: ${tokensAfter} token requests, replay ${replay.join('/')}`),
      [`a hung Redis costs a call about commandTimeoutMs, not the hang: every read answered, CDS calls 503 with Retry-After: 1, the slowest of either under the ${((woke - hung) / 1000).toFixed(1)} s hang`]: check(
        hungReads.length > 0 && hungReads.every((s) => s.status === 200) && hungCds.some((s) => s.status === 503) && hungCds.every((s) => s.status === 200 || (s.status === 503 && s.retryAfter === '1')) && Math.max(slowest(hungReads), slowest(hungCds)) < woke - hung && tokensHung <= hungBound,
        `while Redis was hung: reads ${hungReads.filter((s) => s.status !== 200).length} failed, slowest ${slowest(hungReads).toFixed(0)} ms; CDS slowest ${slowest(hungCds).toFixed(0)} ms; ${tokensHung} token requests`,
      ),
      'with an append-only file, the replay store outlives a restart (the early token is still refused)': check(earlyFirst === 200 && earlyAgain === 401, `the token used before the outage: ${earlyFirst} then ${earlyAgain}`),
    };
    for (const [claim, verdict] of Object.entries(claims)) figures[`claim: ${claim}`] = verdict;
    return {
      name: 'Redis outage',
      what: `two replicas (\`bench/servers/scale-redis-replica.ts\`) share a \`redis-server\` through \`redisStore\` set up as docs/events.md says (an \`'error'\` listener, \`disableOfflineQueue\`, \`pingInterval\`, a reconnect strategy that never gives up, \`commandTimeoutMs\` ${c.commandTimeoutMs}) for the gateway's tokens (${TOKEN_SECONDS} s tokens from the sandbox, so each replica refreshes every ${(REFRESH_MS / 1000).toFixed(1)} s) and the CDS \`jti\` replay check; per replica 4 keep-alive and 2 connection-per-request loops read a Patient through a transform handler (an upstream read each), and one loop sends CDS calls with a fresh JWT each; after ${c.seconds} s, redis-server is stopped (SIGTERM) for ${(c.outageMs / 1000).toFixed(1)} s and started again on its port; ${c.seconds} s after it settled (3 s), it is hung (SIGSTOP) for ${(c.outageMs / 1000).toFixed(1)} s, then resumed, and the load goes on 2 s`,
      loads: [['reads, keep-alive (2×4)', keepAlive], ['reads, new connection per request (2×2)', perRequest], ['CDS calls (2×1)', cdsCounts]],
      events,
      figures,
      violations,
    };
  } finally {
    for (const fn of cleanups.reverse()) await fn();
    rmSync(dir, { recursive: true, force: true });
  }
}
