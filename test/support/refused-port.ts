/**
 * A loopback port that refuses connections for the whole test, for "the upstream is down" cases. A port
 * freed a moment ago does not do: with the suite's processes in parallel, a server on port 0 can be given
 * it while a request is still retrying (CI saw a refused request answered by another test's server).
 * @module
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** The first port the kernel hands out for port 0 and outgoing connections (IANA's 49152 where unknown). */
function ephemeralLow(): number {
  try {
    const low = Number.parseInt(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'), 10);
    return Number.isInteger(low) && low > 1024 ? low : 49_152;
  } catch {
    return 49_152;
  }
}

/** Whether a connection to `127.0.0.1:port` is refused (rather than taken or failing otherwise). */
function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/**
 * A port on 127.0.0.1 just below the kernel's ephemeral range that nothing listens on. No server on port 0
 * and no outgoing connection is ever given a port there, so it keeps refusing. Connect to it, never listen
 * on it: parallel test files may be handed the same port.
 *
 * @example
 * ```ts
 * const down = `http://127.0.0.1:${await refusedPort()}`;
 * await assert.rejects(request(down), { code: 'ERR_NETWORK' });
 * ```
 */
export async function refusedPort(): Promise<number> {
  const below = ephemeralLow() - 1;
  for (let port = below; port > below - 100; port -= 1) {
    if (await refuses(port)) return port;
  }
  throw new Error(`no refusing port among 127.0.0.1:${below - 99}-${below}`);
}
