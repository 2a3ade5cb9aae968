/**
 * An agent's idle keep-alive sockets: closing those to one origin so that the next request opens a new
 * one, and closing each once it has been idle too long.
 * @module
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import { rawHeader } from './buffered-response.js';
import { startTimer, stopTimer } from './coarse-timers.js';
import type { TimerHandle } from './coarse-timers.js';
import type { HTTPTarget } from './request-options.js';

/**
 * Destroys the idle sockets `agent` keeps for `target`'s host and port (Node names its socket lists
 * `host:port:...`). Used after a request failed on a stale socket: the server closed it while idle,
 * and the idle sockets opened alongside it are likely closed too.
 */
export function dropIdleSockets(agent: http.Agent, target: HTTPTarget): void {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = target.port === '' ? (target.protocol === 'https:' ? '443' : '80') : target.port;
  const prefix = `${host}:${port}:`;
  for (const [name, sockets] of Object.entries(agent.freeSockets)) {
    if (name.startsWith(prefix)) for (const socket of sockets ?? []) socket.destroy();
  }
}

/** What Node's agent really does with `keepSocketAlive`'s answer (`@types/node` says `void`): false closes the socket. */
type KeepSocketAlive = (socket: Socket) => boolean;

/** The expiry timer of an idle socket, on the socket itself (a field write per request, no map). */
const IDLE_TIMER = Symbol('fhirgate.idleTimer');
type TimedSocket = Socket & { [IDLE_TIMER]?: TimerHandle | undefined };

/**
 * Closes `agent`'s keep-alive sockets once they have been idle for `idleMs`, or one second before the
 * server's own `Keep-Alive: timeout=N` when that is sooner (what Node does with the agent's `timeout`
 * option). The timer ({@link startTimer}: up to half a second late from one second on) runs only
 * while a socket is idle: started when the agent keeps the socket, stopped when a request takes it
 * again, through the two methods Node documents for Agent subclasses to override. The agent's
 * `timeout` option, used before, kept a socket timer armed during every request too, refreshed on
 * every read and write, with a `timeout` listener added and removed per request: 7–10% of a gateway
 * read at concurrency 16 (A/B against a raw keep-alive agent with and without that option).
 *
 * `keepSocketAlive` does what Node's own does for an agent without a `timeout` (TCP keep-alive on, the
 * socket unreferenced, no socket timer, not kept when the server keeps it for a second or less), but
 * reads the server's `Keep-Alive` from the answer's raw header list: Node's reads `res.headers`, which
 * builds the answer's whole headers object per request even when nobody else reads it.
 */
export function expireIdleSockets(agent: http.Agent, idleMs: number): void {
  const reuse = agent.reuseSocket;
  (agent as unknown as { keepSocketAlive: KeepSocketAlive }).keepSocketAlive = (socket: TimedSocket) => {
    const serverMs = serverIdleMs(socket);
    socket.setKeepAlive(true, (agent as { keepAliveMsecs?: number }).keepAliveMsecs);
    socket.unref();
    if (socket.timeout !== 0) socket.setTimeout(0);
    if (serverMs <= 0) return false;
    socket[IDLE_TIMER] = startTimer(Math.min(idleMs, serverMs), closeIdle, socket);
    return true;
  };
  agent.reuseSocket = (socket, request) => {
    const timer = (socket as TimedSocket)[IDLE_TIMER];
    if (timer !== undefined) stopTimer(timer);
    reuse.call(agent, socket, request);
  };
}

function closeIdle(socket: Socket): void {
  socket.destroy();
}

const KEEP_ALIVE_TIMEOUT = /^timeout=(\d+)/;

/**
 * How long the server said it keeps an idle connection (`Keep-Alive: timeout=N` on the answer the
 * socket just carried), less one second, as Node's agent counts it; `Infinity` when it did not say.
 * `_httpMessage` is where Node's own agent reads that answer from.
 */
function serverIdleMs(socket: Socket): number {
  const answer = (socket as { _httpMessage?: { res?: http.IncomingMessage | null } })._httpMessage?.res;
  const value = answer == null ? undefined : rawHeader(answer.rawHeaders, 'keep-alive');
  const hint = value === undefined ? undefined : KEEP_ALIVE_TIMEOUT.exec(value)?.[1];
  return hint === undefined ? Infinity : Number(hint) * 1000 - 1000;
}
