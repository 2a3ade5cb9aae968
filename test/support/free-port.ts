/**
 * A loopback port that was free a moment ago, for programs (HAProxy, redis-server, nats-server) that
 * cannot bind port 0 and report the port they got.
 * @module
 */
import { createServer, type AddressInfo } from 'node:net';

/**
 * Asks the kernel for a free port on 127.0.0.1 (listen on port 0, read it, close).
 *
 * @example
 * ```ts
 * const port = await freePort();
 * spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1']);
 * ```
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
