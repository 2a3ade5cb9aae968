/**
 * Starting benchmark peers in their own processes, pinned to a core when `taskset` is there, and
 * waiting for the line `listening <port>` that every peer prints once it is ready.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const hasTaskset = spawnSync('taskset', ['-V']).status === 0;
const cores = availableParallelism();

/** The core a role runs on: servers on the last core, load generators and clients on core 0. */
export function coreFor(role: 'server' | 'client'): number | undefined {
  if (!hasTaskset || cores < 2) return undefined;
  return role === 'server' ? cores - 1 : 0;
}

/** Pins this very process to a core (best effort). */
export function pinSelf(role: 'server' | 'client'): void {
  const core = coreFor(role);
  if (core !== undefined) spawnSync('taskset', ['-cp', String(core), String(process.pid)], { stdio: 'ignore' });
}

export interface Peer {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `node [...nodeFlags] --import tsx <script> ...args` pinned to the server core (or the client's,
 * for an upstream that must not share the measured server's core); resolves once it listens. `node` is
 * the Node binary it runs on (default: the one running the bench; see `benchNodes`).
 */
export function startPeer(script: URL, args: string[] = [], env: Record<string, string> = {}, nodeFlags: string[] = [], role: 'server' | 'client' = 'server', node = process.execPath): Promise<Peer> {
  const core = coreFor(role);
  const nodeArgs = [...nodeFlags, '--import', 'tsx', fileURLToPath(script), ...args];
  const [cmd, argv] = core === undefined ? [node, nodeArgs] : ['taskset', ['-c', String(core), node, ...nodeArgs]];
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /listening (\d+)/.exec(buffer);
      if (!match) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve({
        port: Number(match[1]),
        child,
        stop: () => new Promise((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script.pathname} exited with ${code} before listening`)));
  });
}
