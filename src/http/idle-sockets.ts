/**
 * Closing an agent's idle keep-alive sockets to one origin, so that the next request opens a new one.
 * @module
 */
import type http from 'node:http';

/**
 * Destroys the idle sockets `agent` keeps for `target`'s host and port (Node names its socket lists
 * `host:port:...`). Used after a request failed on a stale socket: the server closed it while idle,
 * and the idle sockets opened alongside it are likely closed too.
 *
 * @example
 * ```ts
 * dropIdleSockets(http.globalAgent, new URL('http://127.0.0.1:8080/fhir'));
 * ```
 */
export function dropIdleSockets(agent: http.Agent, target: URL): void {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = target.port === '' ? (target.protocol === 'https:' ? '443' : '80') : target.port;
  const prefix = `${host}:${port}:`;
  for (const [name, sockets] of Object.entries(agent.freeSockets)) {
    if (name.startsWith(prefix)) for (const socket of sockets ?? []) socket.destroy();
  }
}
