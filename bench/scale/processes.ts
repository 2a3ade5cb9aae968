/**
 * The processes of `npm run scale-test`: host replicas on loopback ports, and a cluster whose primary's
 * JSON lines can be waited for; their memory from `/proc`.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPLICA = fileURLToPath(new URL('../servers/scale-replica.ts', import.meta.url));
const CLUSTER = fileURLToPath(new URL('../servers/scale-cluster.ts', import.meta.url));

/** One host process behind HAProxy. */
export interface Replica {
  readonly name: string;
  readonly port: number;
  readonly child: ChildProcess;
}

/** Starts a replica on `port` (0: a free one) and resolves once it listens. */
export async function startReplica(name: string, drainMs: number, port = 0): Promise<Replica> {
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

/** Ends `child` with SIGTERM (or SIGKILL when stopped) unless it has ended. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  await exited;
}

/** A `serveCluster` primary with its JSON lines. */
export interface Cluster {
  readonly child: ChildProcess;
  readonly port: number;
  /** Resolves once the primary has printed `n` lines whose `msg` is `msg`. */
  lines(msg: string, n: number): Promise<void>;
}

/** Starts the scale cluster with `workers` workers and resolves once every worker serves. */
export async function startCluster(workers: number): Promise<Cluster> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLUSTER], { env: { ...process.env, WORKERS: String(workers) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const seen: Array<Record<string, unknown>> = [];
  const wake = new Set<() => void>();
  let rest = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const part of parts) {
      try {
        seen.push(JSON.parse(part) as Record<string, unknown>);
      } catch {
        // not a JSON line
      }
    }
    for (const w of [...wake]) w();
  });
  const lines = (msg: string, n: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (seen.filter((l) => l['msg'] === msg).length >= n) {
          wake.delete(check);
          resolve();
        } else if (child.exitCode !== null) reject(new Error(`the cluster exited before ${n} "${msg}" lines`));
      };
      wake.add(check);
      check();
    });
  await lines('cluster listening', 1);
  const port = seen.find((l) => l['msg'] === 'cluster listening')!['port'] as number;
  return { child, port, lines };
}

/** Resident and peak memory of `pid`, in MiB. */
export function rss(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}
