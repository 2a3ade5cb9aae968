/**
 * Starting benchmark peers in their own processes, pinned to a core when `taskset` is there, and
 * waiting for the line `listening <port>` that every peer prints once it is ready.
 *
 * Peers run compiled, as users run fhirgate (the package ships `tsc`'s output in dist/): the first peer of a
 * bench compiles bench/servers/ and the sources they import with bench/tsconfig.servers.json (the build's
 * compiler options) into bench/.build/, and every peer runs its `.js` there with plain Node, fhirgate and the
 * Fastify builds alike. Through tsx (`BENCH_TSX=1`) every function a module defines at run time is wrapped
 * in esbuild's `__name`, which costs fhirgate's per-request closures about 1% of a read (issue 38).
 */
import { copyFileSync, rmSync } from 'node:fs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when `taskset` is there to pin processes to cores. */
export const hasTaskset = spawnSync('taskset', ['-V']).status === 0;
const cores = availableParallelism();

/** The core a role runs on: servers on the last core, load generators and clients on core 0. */
export function coreFor(role: 'server' | 'client'): number | undefined {
  if (!hasTaskset || cores < 2) return undefined;
  return role === 'server' ? cores - 1 : 0;
}

const BENCH = new URL('../', import.meta.url);
const BUILD = new URL('.build/', BENCH);
let built = false;

/**
 * Node's arguments that run `script` (a file under bench/): its compiled `.js` in bench/.build/, compiled
 * on the first call; `--import tsx` and the source with `BENCH_TSX=1`.
 */
export function runnable(script: URL): string[] {
  if (process.env.BENCH_TSX === '1') return ['--import', 'tsx', fileURLToPath(script)];
  if (!built) {
    rmSync(BUILD, { recursive: true, force: true });
    const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', BENCH));
    // Type errors of the bench's own servers (Fastify's and Express's typings) do not stop the emit.
    spawnSync(process.execPath, [tsc, '-p', fileURLToPath(new URL('tsconfig.servers.json', BENCH))], { stdio: 'ignore' });
    // The compiled sources read their version (the User-Agent) and their module type from here.
    copyFileSync(new URL('../package.json', BENCH), new URL('package.json', BUILD));
    built = true;
  }
  const source = relative(fileURLToPath(new URL('../', BENCH)), fileURLToPath(script));
  return [fileURLToPath(new URL(source.replace(/\.ts$/, '.js'), BUILD))];
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
 * Starts `node [...nodeFlags] <script, compiled (see {@link runnable})> ...args` pinned to the server core (or the client's,
 * for an upstream that must not share the measured server's core); resolves once it listens. `node` is
 * the Node binary it runs on (default: the one running the bench; see `benchNodes`).
 */
export function startPeer(script: URL, args: string[] = [], env: Record<string, string> = {}, nodeFlags: string[] = [], role: 'server' | 'client' = 'server', node = process.execPath): Promise<Peer> {
  const core = coreFor(role);
  const nodeArgs = [...nodeFlags, ...runnable(script), ...args];
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
