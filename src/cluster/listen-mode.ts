/**
 * How the workers of a cluster get their connections: each listens on the port itself with `reusePort`
 * (`SO_REUSEPORT`: the kernel spreads connections over the workers' listeners), or the primary accepts
 * every connection and hands it to a worker over the IPC channel (the way that works everywhere).
 * @module
 */
import { readFileSync } from 'node:fs';

/** The primary's choice, with the reason it logs. */
export interface ListenMode {
  /** Each worker listens on the port itself. */
  readonly reusePort: boolean;
  /** Why, in a few words: `auto: …`, or `the reusePort option`. */
  readonly reason: string;
  /** `net.ipv4.tcp_migrate_req` in the primary's network namespace, or `undefined` where unreadable. */
  readonly migrateReq: number | undefined;
}

/** Why this runtime has no `reusePort` for `net.Server.listen` (Linux and Node 22.12 or later), or `undefined`. */
export function reusePortMissing(): string | undefined {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (process.platform !== 'linux') return `it is used on Linux only (this is ${process.platform})`;
  if (major < 22 || (major === 22 && minor < 12)) return `Node ${process.versions.node} has none (it needs 22.12 or later)`;
  return undefined;
}

/** `net.ipv4.tcp_migrate_req` as this process's network namespace has it, or `undefined` where unreadable. */
function migrateReq(): number | undefined {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/tcp_migrate_req', 'utf8').trim());
  } catch {
    return undefined;
  }
}

/**
 * The mode for the `reusePort` option. `'auto'` takes `reusePort` where the runtime has it and the kernel
 * moves the connections queued on a closing listener to the others (`net.ipv4.tcp_migrate_req=1`): without
 * that, every listener a worker closes (rolling restart, shutdown, crash) resets the connections queued on
 * it, which the primary's hand-over never does. `true` takes it anyway (a runtime without it is refused
 * when the options are read), `false` never.
 */
export function chooseListenMode(option: 'auto' | boolean): ListenMode {
  const migrate = migrateReq();
  if (option !== 'auto') return { reusePort: option, reason: 'the reusePort option', migrateReq: migrate };
  const missing = reusePortMissing();
  if (missing !== undefined) return { reusePort: false, reason: `auto: no reusePort: ${missing}`, migrateReq: migrate };
  if (migrate !== 1) return { reusePort: false, reason: `auto: net.ipv4.tcp_migrate_req is ${migrate ?? 'unreadable'}, not 1`, migrateReq: migrate };
  return { reusePort: true, reason: 'auto: reusePort and net.ipv4.tcp_migrate_req=1', migrateReq: migrate };
}
