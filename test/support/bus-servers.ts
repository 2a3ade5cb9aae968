/**
 * Real redis-server and nats-server processes for tests, each on a free loopback port, stopped in
 * `t.after`. A server can be stopped, paused (SIGSTOP: a hung server) and started again on the same
 * port, for the outage tests. Returns `undefined` when the program is missing outside CI (the test was
 * skipped).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { systemBinary, type SkippableTest } from './system-binary.js';

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** A server process the test controls. */
export interface BusServer {
  /** `redis://127.0.0.1:PORT` or `127.0.0.1:PORT` (NATS). */
  readonly url: string;
  /** Stops the process (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (and data directory) and waits until it accepts connections. */
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its sockets open but answers nothing. */
  pause(): void;
  /** SIGCONT after {@link BusServer.pause}. */
  resume(): void;
}

class Process implements BusServer {
  #child: ChildProcess | undefined;
  constructor(
    readonly url: string,
    private readonly binary: string,
    private readonly args: string[],
    private readonly port: number,
  ) {}

  async start(): Promise<void> {
    const child = spawn(this.binary, this.args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    for (let i = 0; i < 200; i++) {
      if (child.exitCode !== null) throw new Error(`${this.binary} exited (${child.exitCode}): ${stderr}`);
      if (await accepts(this.port)) return;
      await sleep(50);
    }
    throw new Error(`${this.binary} did not accept connections on port ${this.port}`);
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
  }

  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  resume(): void {
    this.#child?.kill('SIGCONT');
  }
}

/** What the helpers need of a test: cleanup (a script outside `node:test` passes its own). */
export type ServerContext = Pick<TestContext, 'after'> & SkippableTest;

/**
 * Starts `binary` with `args(port)` on a free loopback port and resolves once the port accepts
 * connections; stopped in `t.after`. For any Debian server a test starts (redis-server, nats-server,
 * tinyproxy, `openssl s_server`).
 *
 * @example
 * ```ts
 * const server = await startServer(t, '/usr/bin/tinyproxy', (port) => `http://127.0.0.1:${port}`, (port) => ['-d', '-c', configFor(port)]);
 * ```
 */
export async function startServer(t: ServerContext, binary: string, url: (port: number) => string, args: (port: number) => string[]): Promise<BusServer> {
  const port = await freePort();
  const server = new Process(url(port), binary, args(port), port);
  t.after(() => server.stop());
  await server.start();
  return server;
}

/**
 * A redis-server with no persistence, or, with `appendOnlyDir`, with an append-only file there written on
 * every command (`appendfsync always`: what it acknowledged survives a stop and a start).
 */
export async function startRedisServer(t: ServerContext, { appendOnlyDir }: { appendOnlyDir?: string } = {}): Promise<BusServer | undefined> {
  const binary = systemBinary(t, 'redis-server', 'redis-server');
  if (binary === undefined) return undefined;
  const persistence = appendOnlyDir === undefined ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', appendOnlyDir];
  return startServer(t, binary, (p) => `redis://127.0.0.1:${p}`, (p) => ['--port', String(p), '--bind', '127.0.0.1', '--save', '', ...persistence]);
}

/** A redis-server with no persistence; resolves to its `redis://` URL. */
export async function startRedis(t: TestContext): Promise<string | undefined> {
  return (await startRedisServer(t))?.url;
}

/** A nats-server; with `jetStream`, JetStream on, its store in a temporary directory kept across restarts. */
export async function startNatsServer(t: TestContext, { jetStream = false } = {}): Promise<BusServer | undefined> {
  const binary = systemBinary(t, 'nats-server', 'nats-server');
  if (binary === undefined) return undefined;
  const dir = jetStream ? mkdtempSync(join(tmpdir(), 'fhirgate-js-')) : undefined;
  const store = dir === undefined ? [] : ['-js', '-sd', dir];
  try {
    return await startServer(t, binary, (p) => `127.0.0.1:${p}`, (p) => ['-a', '127.0.0.1', '-p', String(p), ...store]);
  } finally {
    // Registered after the server's stop, so that it runs once the server is gone.
    if (dir !== undefined) t.after(() => rmSync(dir, { recursive: true, force: true }));
  }
}

/** A nats-server; resolves to its `host:port`. */
export async function startNats(t: TestContext): Promise<string | undefined> {
  return (await startNatsServer(t))?.url;
}
