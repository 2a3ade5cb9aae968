/**
 * The options of `serveCluster`, validated and copied once.
 * @module
 */
import { availableParallelism } from 'node:os';
import { createLogger } from '../host/index.js';
import { isLogger } from '../host/options.js';
import type { Logger } from '../host/options.js';
import { onlyKnownKeys } from '../lib/options.js';
import { reusePortMissing } from './listen-mode.js';

/** Options of `serveCluster`. */
export interface ClusterOptions {
  /** How many workers: `'auto'` (one per core, `os.availableParallelism()`) or a count. Default `'auto'`. */
  workers?: 'auto' | number;
  /** The port the primary listens on; it hands each connection to a worker. 0 picks a free one. */
  port: number;
  /** The address to listen on. Default `'127.0.0.1'`; `'0.0.0.0'` in a container. */
  host?: string;
  /** Where the primary's lines go (workers log through their app). Default one JSON line each on stdout/stderr. */
  logger?: Logger;
  /** Wait before re-forking a worker that died, in ms; doubled for each recent death. Default 100. */
  restartDelayMs?: number;
  /** The longest such wait, in ms. Default 5 000. */
  maxRestartDelayMs?: number;
  /**
   * Start-up failures tolerated within `restartWindowMs`; one more is a crash loop and the primary gives
   * up (exit code 1). A start-up failure is a worker that died before it served a connection; a worker
   * that had served one is restarted (with back-off) however soon and however often it dies. Default 5.
   */
  maxRestarts?: number;
  /** The window in which deaths are counted, in ms. Default 30 000. */
  restartWindowMs?: number;
  /** How long a worker may take to drain and exit before it is killed (SIGKILL), in ms. Default 30 000. */
  stopTimeoutMs?: number;
  /**
   * Whether each worker listens on the port itself (`SO_REUSEPORT`, Node 22.12 or later on Linux) instead
   * of the primary accepting every connection and handing it over. `'auto'` (the default) does where the
   * runtime can and `net.ipv4.tcp_migrate_req` is 1 (a closing worker's queued connections then move to
   * the others instead of being reset); `true` does wherever the runtime can (refused elsewhere); `false`
   * never. The primary's `cluster starting` line says which, and why.
   */
  reusePort?: 'auto' | boolean;
}

/** The option names, for the unknown-key refusal. */
const KNOWN: ReadonlyArray<keyof ClusterOptions> = [
  'workers', 'port', 'host', 'logger', 'restartDelayMs', 'maxRestartDelayMs', 'maxRestarts', 'restartWindowMs', 'stopTimeoutMs', 'reusePort',
];

/** The options after validation, defaults filled in. */
export interface ResolvedClusterOptions {
  readonly workers: number;
  readonly port: number;
  readonly host: string;
  readonly logger: Logger;
  readonly restartDelayMs: number;
  readonly maxRestartDelayMs: number;
  readonly maxRestarts: number;
  readonly restartWindowMs: number;
  readonly stopTimeoutMs: number;
  readonly reusePort: 'auto' | boolean;
}

const DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  restartDelayMs: 100,
  maxRestartDelayMs: 5_000,
  maxRestarts: 5,
  restartWindowMs: 30_000,
  stopTimeoutMs: 30_000,
});

function integer(value: unknown, name: string, fallback: number | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`options.${name} must be a number`);
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`options.${name} must be an integer from ${min} to ${max}`);
  return value;
}

function reusePortOption(value: unknown): 'auto' | boolean {
  if (value === undefined || value === 'auto') return 'auto';
  if (typeof value !== 'boolean') throw new TypeError('options.reusePort must be "auto" or a boolean');
  const missing = value ? reusePortMissing() : undefined;
  if (missing !== undefined) throw new RangeError(`options.reusePort is true, but ${missing}: leave it "auto" or false`);
  return value;
}

function workerCount(value: unknown): number {
  if (value === undefined || value === 'auto') return availableParallelism();
  if (typeof value !== 'number') throw new TypeError('options.workers must be "auto" or a number');
  return integer(value, 'workers', undefined, 1, 1024);
}

/** Validates and copies `serveCluster` options. Throws `TypeError`/`RangeError` naming the option. */
export function resolveClusterOptions(options: ClusterOptions): ResolvedClusterOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('serveCluster options must be an object');
  onlyKnownKeys(options, KNOWN, 'options');
  if (options.logger !== undefined && !isLogger(options.logger)) throw new TypeError('options.logger must have debug, info, warn and error methods');
  const host = options.host ?? DEFAULTS.host;
  if (typeof host !== 'string' || host === '') throw new TypeError('options.host must be a non-empty string');
  const restartDelayMs = integer(options.restartDelayMs, 'restartDelayMs', DEFAULTS.restartDelayMs, 0);
  const maxRestartDelayMs = integer(options.maxRestartDelayMs, 'maxRestartDelayMs', DEFAULTS.maxRestartDelayMs, 0);
  if (restartDelayMs > maxRestartDelayMs) throw new RangeError('options.restartDelayMs must be <= options.maxRestartDelayMs');
  return Object.freeze({
    workers: workerCount(options.workers),
    port: integer(options.port, 'port', undefined, 0, 65535),
    host,
    logger: options.logger ?? createLogger(),
    restartDelayMs,
    maxRestartDelayMs,
    maxRestarts: integer(options.maxRestarts, 'maxRestarts', DEFAULTS.maxRestarts, 0),
    restartWindowMs: integer(options.restartWindowMs, 'restartWindowMs', DEFAULTS.restartWindowMs, 1),
    stopTimeoutMs: integer(options.stopTimeoutMs, 'stopTimeoutMs', DEFAULTS.stopTimeoutMs, 1),
    reusePort: reusePortOption(options.reusePort),
  });
}
