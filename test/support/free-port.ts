/**
 * Loopback ports that no server on port 0 is given for the next minute: for programs that cannot bind
 * port 0 (HAProxy, redis-server, nats-server), for "the upstream is down" cases and for servers that
 * restart on their port. A port merely closed does not do: with the suite's processes in parallel, the
 * kernel hands it to another test's port-0 server about once in 8,000 binds (CI saw a refused request
 * answered by another test's server).
 * @module
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * Closes a listening server so that its port stays out of port-0 binds for a minute, and returns the port.
 * One connection that the server closes first leaves a TIME_WAIT socket on the port; Linux's choice of a
 * port for port 0 skips ports with such a socket, while connecting there is refused and an explicit bind
 * with `SO_REUSEADDR` (Node's listen, redis-server, nats-server, HAProxy) still succeeds.
 *
 * @example
 * ```ts
 * const port = await closeKeepingPort(sink);
 * await new Promise<void>((resolve) => sink.listen(port, '127.0.0.1', resolve)); // back up, same port
 * ```
 */
export async function closeKeepingPort(server: Server): Promise<number> {
  const { port } = server.address() as AddressInfo;
  // Every connection from now on is ended by the server, the probe's and any other client's.
  const end = (socket: Socket): void => void socket.end();
  server.on('connection', end);
  await new Promise<void>((resolve, reject) => {
    const client = connect(port, '127.0.0.1');
    client.once('error', reject);
    client.once('close', () => resolve());
    client.resume();
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.off('connection', end);
  return port;
}

/**
 * A port on 127.0.0.1 that nothing listens on and that no port-0 server is given for the next minute
 * (listen on port 0, then {@link closeKeepingPort}): connections to it are refused until something binds it.
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
  return closeKeepingPort(server);
}
