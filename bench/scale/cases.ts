/**
 * The cases of `npm run scale-test`, each under the mixed load of test/support/load-client.ts, counting resets, connections closed
 * without an answer, refusals and time-outs: a replica behind HAProxy gets SIGTERM, SIGKILL (with and
 * without HAProxy's retries of safe methods) or SIGSTOP; a `serveCluster` gets SIGHUPs, then SIGTERM.
 */
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHaproxy } from '../../test/support/haproxy.js';
import type { HaproxyOptions } from '../../test/support/haproxy.js';
import { failures, resetsAtListenerClose, runMixedLoad } from '../../test/support/load-client.js';
import type { LoadCounts, LoadSample } from '../../test/support/load-client.js';
import { rss, startCluster, startReplica, stopProcess } from './processes.js';

/** What one case saw. */
export interface CaseResult {
  readonly name: string;
  readonly what: string;
  /** Per load (`keep-alive`, `new connection per request`), what its client counted. */
  readonly loads: Array<readonly [string, LoadCounts]>;
  /** What happened, with times from the start of the case. */
  readonly events: string[];
  /** Figures of the case's own (HAProxy's retries, memory). */
  readonly figures: Record<string, string>;
  /** The docs claims this run contradicted (a case that checks claims). */
  readonly violations?: readonly string[];
}

/** What the load asks for. */
export const PATH = '/fhir/transform/Patient/scale-1';

function clock(events: string[]): (line: string) => void {
  const started = performance.now();
  return (line) => {
    const stamp = `${((performance.now() - started) / 1000).toFixed(2)} s`;
    events.push(`${stamp}: ${line}`);
    console.log(`  [${stamp}] ${line}`);
  };
}

/** Options of one replica case. */
export interface ReplicaCase {
  readonly name: string;
  readonly what: string;
  readonly signal: 'SIGTERM' | 'SIGKILL' | 'SIGSTOP';
  readonly haproxy: HaproxyOptions;
  readonly seconds: number;
  readonly drainMs: number;
}

/**
 * Three replicas behind HAProxy under load; a third of the way in, r1 gets the signal; halfway it is
 * started again on its port (SIGCONT after SIGSTOP).
 */
export async function replicaCase(bin: string, c: ReplicaCase): Promise<CaseResult> {
  const events: string[] = [];
  const note = clock(events);
  const replicas = await Promise.all(['r1', 'r2', 'r3'].map((name) => startReplica(name, c.drainMs)));
  const lb = await startHaproxy(bin, replicas, c.haproxy);
  await Promise.all(replicas.map((r) => lb.waitForStatus(r.name, 'UP')));
  note(`3 replicas UP in HAProxy; load for ${c.seconds} s`);
  const statuses: Record<string, string> = {};
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      for (const [name, s] of Object.entries(await lb.stats())) {
        if (statuses[name] !== undefined && statuses[name] !== s.status) note(`HAProxy: ${name} ${statuses[name]} -> ${s.status} (${s.checkStatus})`);
        statuses[name] = s.status;
      }
      await sleep(50);
    }
  })();
  const stop = new AbortController();
  const started = performance.now();
  const load = runMixedLoad(`${lb.url}${PATH}`, stop.signal);
  const until = (fraction: number) => sleep(Math.max(0, c.seconds * 1000 * fraction - (performance.now() - started)));
  await until(1 / 3);
  const victim = replicas[0]!;
  note(`${c.signal} to r1 (pid ${victim.child.pid})`);
  victim.child.kill(c.signal);
  await until(1 / 2);
  if (c.signal === 'SIGSTOP') {
    victim.child.kill('SIGCONT');
    note('SIGCONT to r1');
  } else {
    if (victim.child.exitCode === null && victim.child.signalCode === null) await new Promise((r) => victim.child.once('exit', r));
    note(`r1 ended (${victim.child.exitCode ?? victim.child.signalCode}); starting it again on port ${victim.port}`);
    replicas[0] = await startReplica('r1', c.drainMs, victim.port);
  }
  await until(1);
  stop.abort();
  const counts = await load;
  const stats = await lb.stats();
  const memory = replicas.map((r) => `${r.name} ${rss(r.child.pid!).rssMiB.toFixed(0)} MiB`).join(', ');
  watching = false;
  await watcher;
  await lb.close();
  await Promise.all(replicas.map((r) => stopProcess(r.child)));
  const sum = (pick: (s: (typeof stats)[string]) => number) => Object.values(stats).reduce((n, s) => n + pick(s), 0);
  return {
    name: c.name,
    what: c.what,
    loads: counts,
    events,
    figures: { 'HAProxy retries + redispatches': String(sum((s) => s.wretr + s.wredis)), 'HAProxy connection/response errors': String(sum((s) => s.econ + s.eresp)), 'RSS at the end': memory },
  };
}

/** A cluster of `workers` under load through `restarts` SIGHUPs (one result), then SIGTERM (another). */
export async function clusterCases(workers: number, restarts: number): Promise<[CaseResult, CaseResult]> {
  const events: string[] = [];
  const note = clock(events);
  const cluster = await startCluster(workers);
  const url = `http://127.0.0.1:${cluster.port}${PATH}`;
  note(`cluster of ${workers} workers serving on port ${cluster.port}`);
  const stop = new AbortController();
  const load = runMixedLoad(url, stop.signal);
  await sleep(1000);
  for (let i = 1; i <= restarts; i += 1) {
    cluster.child.kill('SIGHUP');
    await cluster.lines('rolling restart done', i);
    note(`rolling restart ${i} done`);
  }
  stop.abort();
  const rolling = await load;
  const termEvents: string[] = [];
  const noteTerm = clock(termEvents);
  const stopTerm = new AbortController();
  const samples = { keepAlive: [] as LoadSample[], perRequest: [] as LoadSample[] };
  const termLoad = runMixedLoad(url, stopTerm.signal, samples);
  await sleep(2000);
  noteTerm(`SIGTERM to the primary (pid ${cluster.child.pid})`);
  cluster.child.kill('SIGTERM');
  const [code] = (await once(cluster.child, 'exit')) as [number | null];
  noteTerm(`the primary exited with code ${code}`);
  // Clients go on for a moment: from now on they can only be refused.
  await sleep(300);
  stopTerm.abort();
  const term = await termLoad;
  const atClose = [resetsAtListenerClose(samples.keepAlive), resetsAtListenerClose(samples.perRequest)];
  const own = term.reduce((n, [, c]) => n + failures(c) - c.reset, 0) + atClose.reduce((n, r) => n + r.other, 0);
  return [
    { name: `SIGHUP x${restarts}`, what: `\`serveCluster\` with ${workers} workers, no load balancer; ${restarts} rolling restarts one after the other`, loads: rolling, events, figures: {} },
    {
      name: 'SIGTERM (cluster)',
      what: 'the same cluster, 2 s of load, then SIGTERM to the primary; the load goes on 300 ms after it exited. What is left to lose here is TCP\'s own: a connection that the kernel completes into the listen queue after the primary\'s last accept and before its listener closes is reset by Linux when the listener closes (`inet_csk_listen_stop`), and Node offers no way to make the kernel stop completing handshakes first (docs/deployment.md says why). Such a reset is its client loop\'s last request before refusals; every other failure is a loss of fhirgate\'s own and must be 0. With no load balancer in front a client sees those resets; behind HAProxy, `retry-on conn-failure` retries them, and with `readinessDrainMs` the balancer stops sending before the listener closes',
      loads: term,
      events: termEvents,
      figures: {
        "resets at the listener's close (each its loop's last request before refusals)": `keep-alive ${atClose[0]!.atClose}, new connection per request ${atClose[1]!.atClose}`,
        'other failures (resets before that, closed without an answer, time-outs, error statuses)': String(own),
      },
      violations: own === 0 ? [] : [`${own} requests failed other than by a reset at the listener's close`],
    },
  ];
}
