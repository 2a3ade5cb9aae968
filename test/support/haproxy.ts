/**
 * A real HAProxy (Debian's `haproxy`) in front of replicas on loopback, for tests and `npm run
 * scale-test`: health checks on `/health/ready`, retries of failed connections on another replica, and
 * the runtime stats read from its admin socket.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';

/** One backend server: its name in HAProxy and its loopback port. */
export interface Replica {
  readonly name: string;
  readonly port: number;
}

/** One row of `show stat` for a backend server. */
export interface ServerStat {
  /** `UP`, `DOWN`, `UP 1/2` (going down), `DOWN 1/2` (coming up), `MAINT`. */
  readonly status: string;
  /** The last health check: `L7OK`, `L7STS` (wrong HTTP status), `L4CON` (refused), ..., and its HTTP status. */
  readonly checkStatus: string;
  readonly checkCode: number;
  /** Answers by class, counted by HAProxy. */
  readonly hrsp2xx: number;
  readonly hrsp5xx: number;
  /** Connection errors, response errors, retries, redispatches to another server. */
  readonly econ: number;
  readonly eresp: number;
  readonly wretr: number;
  readonly wredis: number;
}

export interface Haproxy {
  /** `http://127.0.0.1:<port>` of the frontend. */
  readonly url: string;
  /** Every backend server's current row. */
  stats(): Promise<Record<string, ServerStat>>;
  /** Resolves once `server`'s status is exactly `status` (checked every 50 ms). */
  waitForStatus(server: string, status: 'UP' | 'DOWN', signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** Choices of the configuration that the scale test varies. */
export interface HaproxyOptions {
  /** `timeout server`: how long an answer may take before `retry-on response-timeout` tries another server, in ms. Default 30 000. */
  readonly serverTimeoutMs?: number;
  /** Retry (`retry-on`) at all. Default true. */
  readonly retries?: boolean;
}

/**
 * The configuration: round robin, checks on `/health/ready` every 100 ms, down after 2 failures, up after
 * 2 passes; a request whose connection failed, came back empty or timed out is retried on another server,
 * for safe methods only (GET, HEAD, OPTIONS: fhirgate's POST routes, CDS Hooks calls and NoteReader, are
 * not safe to send twice).
 */
export function haproxyConfig(port: number, replicas: readonly Replica[], adminSocket: string, options: HaproxyOptions = {}): string {
  return [
    'global',
    '  maxconn 4000',
    `  stats socket ${adminSocket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    `  timeout server ${options.serverTimeoutMs ?? 30_000}ms`,
    // A check gets 2 s to be answered: on a loaded machine the default (the 100 ms interval) marks busy
    // replicas down, and with all of them down HAProxy answers 503 itself.
    '  timeout check 2s',
    '  retries 3',
    '  option redispatch 1',
    ...(options.retries === false ? [] : ['  retry-on conn-failure empty-response response-timeout']),
    'frontend fe',
    `  bind 127.0.0.1:${port}`,
    '  http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS',
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /health/ready',
    '  http-check expect status 200',
    '  default-server inter 100ms fall 2 rise 2',
    ...replicas.map((r) => `  server ${r.name} 127.0.0.1:${r.port} check`),
    '',
  ].join('\n');
}

function adminCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = connect(socket);
    let answer = '';
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => (answer += chunk));
    client.once('error', reject);
    client.once('end', () => resolve(answer));
    client.end(`${command}\n`);
  });
}

function parseStats(csv: string): Record<string, ServerStat> {
  const [header = '', ...rows] = csv.trim().split('\n');
  const names = header.replace(/^# /, '').split(',');
  const col = (cells: string[], name: string) => cells[names.indexOf(name)] ?? '';
  const num = (cells: string[], name: string) => Number(col(cells, name) || 0);
  const out: Record<string, ServerStat> = {};
  for (const row of rows) {
    const cells = row.split(',');
    const server = col(cells, 'svname');
    if (col(cells, 'pxname') !== 'replicas' || server === 'BACKEND') continue;
    out[server] = {
      status: col(cells, 'status'),
      checkStatus: col(cells, 'check_status').replace(/^\* /, ''),
      checkCode: num(cells, 'check_code'),
      hrsp2xx: num(cells, 'hrsp_2xx'),
      hrsp5xx: num(cells, 'hrsp_5xx'),
      econ: num(cells, 'econ'),
      eresp: num(cells, 'eresp'),
      wretr: num(cells, 'wretr'),
      wredis: num(cells, 'wredis'),
    };
  }
  return out;
}

/**
 * Starts `haproxy` (the binary at `bin`) in the foreground in front of `replicas`, and resolves once
 * its admin socket answers.
 *
 * @example
 * ```ts
 * const lb = await startHaproxy('/usr/sbin/haproxy', [{ name: 'r1', port: 8001 }]);
 * await lb.waitForStatus('r1', 'UP');
 * await lb.close();
 * ```
 */
export async function startHaproxy(bin: string, replicas: readonly Replica[], options: HaproxyOptions = {}): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-haproxy-'));
  const adminSocket = join(dir, 'admin.sock');
  const port = await freePort();
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(port, replicas, adminSocket, options));
  const child: ChildProcess = spawn(bin, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (errors += chunk));
  const exited = once(child, 'exit');
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i += 1) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`haproxy exited with ${child.exitCode}: ${errors.trim()}`);
    }
    try {
      await adminCommand(adminSocket, 'show info');
      break;
    } catch (error) {
      if (i === 200) {
        await close();
        throw new Error(`haproxy's admin socket did not answer: ${(error as Error).message}; ${errors.trim()}`);
      }
      await sleep(25);
    }
  }
  const stats = async () => parseStats(await adminCommand(adminSocket, 'show stat'));
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    async waitForStatus(server, status, signal) {
      while ((await stats())[server]?.status !== status) await sleep(50, undefined, { signal });
    },
    close,
  };
}
