/**
 * Which idle sockets a full pool closes so that a request of another origin can open one.
 * @module
 */
import type http from 'node:http';
import { countDestroyed, countLive, countSockets } from './socket-counts.js';

/** What {@link evictIdle} reads of an origin of the pool. */
export interface EvictableOrigin {
  readonly agent: http.Agent;
  /** Requests sent through this origin and not settled yet, queued ones included. */
  readonly inFlight: number;
  /** Live requests waiting in this origin's queue. */
  readonly queued: number;
  readonly retired: boolean;
}

/**
 * Closes up to `needed` idle sockets (fewer by the sockets already closing) of origins nobody waits
 * for. An origin with requests in flight keeps its fair share, `maxConnections` over the origins with
 * requests in flight: its sockets are idle only between an answer and its caller's next request, so
 * closing them had the origins take sockets from each other by turns (in the demo soak at 64
 * connections, a new connection for every fourth request, each waiting 0.3–2 s to be accepted by the
 * busy in-process sandbox: libuv accepts one connection per loop iteration). An origin with nothing
 * in flight, or retired, gives up all its idle sockets.
 */
export function evictIdle(all: readonly EvictableOrigin[], needed: number, maxConnections: number): void {
  const origins = all.filter((o) => o.queued === 0 && countSockets(o.agent.freeSockets) > 0);
  if (origins.length === 0) return;
  let room = needed;
  let busy = 0;
  for (const o of all) {
    room -= countDestroyed(o.agent.sockets) + countDestroyed(o.agent.freeSockets);
    if (o.inFlight > 0) busy++;
  }
  const share = Math.floor(maxConnections / Math.max(1, busy));
  for (const o of origins) {
    let spare = o.inFlight === 0 || o.retired ? Infinity : countLive(o.agent) - share;
    for (const name in o.agent.freeSockets) {
      for (const s of o.agent.freeSockets[name] ?? []) {
        if (room <= 0) return;
        if (spare <= 0) break;
        if (!s.destroyed) {
          s.destroy();
          room--;
          spare--;
        }
      }
    }
  }
}
