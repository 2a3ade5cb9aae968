/**
 * A network namespace of a test's own (`ip netns add`, as root) with loopback up and
 * `net.ipv4.tcp_migrate_req=1`, for the cluster's `reusePort` guarantees; removed after the test.
 */
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';
import { reusePortMissing } from '../../src/cluster/listen-mode.js';

/** Runs `ip` with `args`; the error output when it fails, else `undefined`. */
function ip(args: readonly string[]): string | undefined {
  const run = spawnSync('ip', args, { encoding: 'utf8' });
  if (run.error !== undefined) return run.error.message;
  return run.status === 0 ? undefined : run.stderr.trim() || `exit code ${run.status}`;
}

/**
 * Makes the namespace and resolves to its name, or to the reason it cannot be made here (not Linux, not
 * root, no `ip`, no `reusePort` in this Node): the caller skips with that reason.
 */
export function makeNamespace(t: TestContext): { name: string } | { skip: string } {
  const missing = reusePortMissing();
  if (missing !== undefined) return { skip: `no reusePort: ${missing}` };
  if (process.getuid?.() !== 0) return { skip: 'a network namespace needs root (ip netns add)' };
  const name = `fhirgate-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const failed = ip(['netns', 'add', name]);
  if (failed !== undefined) return { skip: `ip netns add failed: ${failed}` };
  t.after(() => void ip(['netns', 'del', name]));
  const setUp = ip(['-n', name, 'link', 'set', 'lo', 'up']) ?? ip(['netns', 'exec', name, 'sysctl', '-q', '-w', 'net.ipv4.tcp_migrate_req=1']);
  if (setUp !== undefined) throw new Error(`setting up the network namespace ${name} failed: ${setUp}`);
  return { name };
}

/** The command prefix that runs a program inside namespace `name`. */
export const inNamespace = (name: string): string[] => ['ip', 'netns', 'exec', name];
