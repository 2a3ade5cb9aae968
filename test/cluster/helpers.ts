/** Test helpers for the cluster: run test/cluster/cluster-app.ts as a primary, read its JSON lines, hold requests at a gate. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../support/host-helpers.js';
import { helperScript, LOADER } from '../support/code-tree.js';

const APP = helperScript(import.meta.url, './cluster-app');

export type Line = Record<string, unknown> & { msg?: string };

export interface RunningCluster {
  readonly child: ChildProcess;
  /** Every JSON line printed so far (primary and workers share stdout and stderr). */
  readonly lines: Line[];
  /** Resolves with the first line (already printed or to come) that `match` accepts, after `from` lines. */
  waitFor(match: (line: Line) => boolean, from?: number): Promise<Line>;
  /** Resolves with the primary's exit code. */
  readonly exited: Promise<number | null>;
  /** The `cluster ready` line's port and worker pids. */
  ready(): Promise<{ port: number; base: string; workers: number[] }>;
}

/**
 * Starts the test cluster with `env` (in a process group of its own with `ownProcessGroup`, for signals
 * to the whole group; inside a network namespace with `prefix`, such as `ip netns exec <name>`, which
 * execs the program: the child is still the primary); killed (with its workers) after the test if still running.
 */
export function startCluster(t: TestContext, env: Record<string, string>, options: { ownProcessGroup?: boolean; prefix?: readonly string[] } = {}): RunningCluster {
  const [command, ...args] = [...(options.prefix ?? []), process.execPath, ...LOADER, APP];
  const child = spawn(command!, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: options.ownProcessGroup === true });
  const lines: Line[] = [];
  const waiters = new Set<() => void>();
  const read = (stream: NodeJS.ReadableStream) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      for (const part of parts) {
        try {
          lines.push(JSON.parse(part) as Line);
        } catch {
          lines.push({ msg: 'text', text: part });
        }
      }
      for (const wake of [...waiters]) wake();
    });
  };
  read(child.stdout!);
  read(child.stderr!);
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const waitFor = (match: (line: Line) => boolean, from = 0) =>
    new Promise<Line>((resolve, reject) => {
      const check = () => {
        const found = lines.slice(from).find(match);
        if (found === undefined) return;
        waiters.delete(check);
        resolve(found);
      };
      waiters.add(check);
      check();
      void exited.then(() => {
        if (!waiters.has(check)) return;
        check();
        if (waiters.delete(check)) reject(new Error(`the cluster exited before the line was printed; lines: ${JSON.stringify(lines.slice(-10))}`));
      });
    });
  t.after(() => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    for (const line of lines) if (line.msg === 'worker listening') killQuietly(line['pid'] as number);
    child.kill('SIGKILL');
  });
  return {
    child,
    lines,
    waitFor,
    exited,
    ready: async () => {
      const line = await waitFor((l) => l.msg === 'cluster ready');
      const port = line['port'] as number;
      return { port, base: `http://127.0.0.1:${port}`, workers: line['workers'] as number[] };
    },
  };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export interface Gate {
  readonly url: string;
  /** Resolves once `n` requests are waiting at the gate. */
  arrived(n: number): Promise<void>;
  /** Answers every waiting request (and every later one) with `open`. */
  open(): void;
}

/** A loopback server that holds every request until `open()`: a request that reaches it is in flight. */
export async function startGate(t: TestContext): Promise<Gate> {
  const held: ServerResponse[] = [];
  const waiters = new Set<() => void>();
  let opened = false;
  const server = createServer((_req, res) => {
    if (opened) return void res.end('open');
    held.push(res);
    for (const wake of [...waiters]) wake();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    arrived: (n) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (held.length < n) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    open: () => {
      opened = true;
      for (const res of held.splice(0)) res.end('open');
    },
  };
}

/** `/health` over fresh connections until every pid in `expected` has answered (round robin alternates). */
export async function healthPids(base: string, expected: number): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < 40 && pids.size < expected; i += 1) {
    const res = await call(base, '/health');
    assert.equal(res.status, 200);
    pids.add(res.json().pid as number);
  }
  return pids;
}
