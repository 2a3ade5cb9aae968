/**
 * Real redis-server and nats-server processes for tests, each on a free loopback port, stopped in
 * `t.after`. Returns `undefined` when the program is missing outside CI (the test was skipped).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { systemBinary } from './system-binary.js';

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts `binary` with `args(port)` and waits (up to 10 s) until it accepts connections. */
async function startServer(t: TestContext, binary: string, args: (port: number) => string[]): Promise<number> {
  const port = await freePort();
  const child: ChildProcess = spawn(binary, args(port), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  t.after(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${binary} exited (${child.exitCode}): ${stderr}`);
    if (await accepts(port)) return port;
    await sleep(50);
  }
  throw new Error(`${binary} did not accept connections on port ${port}`);
}

/** A redis-server with no persistence; resolves to its `redis://` URL. */
export async function startRedis(t: TestContext): Promise<string | undefined> {
  const binary = systemBinary(t, 'redis-server', 'redis-server');
  if (binary === undefined) return undefined;
  const port = await startServer(t, binary, (p) => ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  return `redis://127.0.0.1:${port}`;
}

/** A nats-server; resolves to its `host:port`. */
export async function startNats(t: TestContext): Promise<string | undefined> {
  const binary = systemBinary(t, 'nats-server', 'nats-server');
  if (binary === undefined) return undefined;
  const port = await startServer(t, binary, (p) => ['-a', '127.0.0.1', '-p', String(p)]);
  return `127.0.0.1:${port}`;
}
