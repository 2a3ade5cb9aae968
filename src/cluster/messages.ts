/**
 * The messages the primary and its workers exchange over the `node:cluster` IPC channel.
 * @module
 */

/**
 * Primary → worker: `connection` (with a socket: serve it), `drain` (shutdown: readiness drain first),
 * `retire` (rolling restart: the worker is already out of the rotation; no drain), `unrouted` (the
 * answer to `unroute`: no connection will follow), `metrics` (send your metric families, answered with
 * `metrics` carrying the same `id`), `cluster-metrics` (the answer to a worker's `metrics-request`),
 * `bye`, the answer to `stopped`, or, in a stop of workers that listen themselves (see `stop-together.ts`),
 * `close-listener` (every listener's queue read empty: close yours) and `release` (every listener is
 * closed: answer the connections you hold).
 */
export type PrimaryMessage =
  | { readonly fhirgate: 'cluster'; readonly event: 'connection' | 'drain' | 'retire' | 'unrouted' | 'bye' | 'close-listener' | 'release' }
  | { readonly fhirgate: 'cluster'; readonly event: 'metrics'; readonly id: number }
  | { readonly fhirgate: 'cluster'; readonly event: 'cluster-metrics'; readonly id: number; readonly families: unknown };

/**
 * Worker → primary: it serves (`listening`); it has its first connection (`serving`: from now on its death
 * is no start-up failure); it could not start (the reason, for the primary's crash-loop error); it
 * crashed (an uncaught error: its message, for the primary's `worker died` line); it asks to leave the
 * rotation (`unroute`); its metric families (the answer to `metrics`, or the last ones, with
 * `stopped`); a scrape of `/metrics` it needs the whole cluster's families for (`metrics-request`); or it
 * has stopped and waits for `bye` before it exits. The channel is ordered, so by the time `bye` arrives
 * every connection the primary handed over has reached the worker. In a stop of workers that listen
 * themselves: it holds new connections and its listener's queue read empty (`quiet`, `quiet: false`
 * when it could not be read or did not empty in time), and it has closed its listener (`listener-closed`).
 */
export type WorkerMessage =
  | { readonly fhirgate: 'cluster'; readonly event: 'listening' | 'serving' | 'unroute' | 'listener-closed' }
  | { readonly fhirgate: 'cluster'; readonly event: 'quiet'; readonly quiet: boolean }
  | { readonly fhirgate: 'cluster'; readonly event: 'failed' | 'crashed'; readonly error: string }
  | { readonly fhirgate: 'cluster'; readonly event: 'metrics'; readonly id: number; readonly families: unknown }
  | { readonly fhirgate: 'cluster'; readonly event: 'metrics-request'; readonly id: number }
  | { readonly fhirgate: 'cluster'; readonly event: 'stopped'; readonly families?: unknown };

/**
 * The environment variable the primary forks a worker with when the worker listens on the port itself
 * (`reusePort`): the port.
 */
export const LISTEN_ENV = 'FHIRGATE_CLUSTER_LISTEN_PORT';

/** Whether `value` is one of fhirgate's cluster messages (other IPC traffic is the user's). */
export function isClusterMessage<T extends { fhirgate: 'cluster' }>(value: unknown): value is T {
  return typeof value === 'object' && value !== null && (value as { fhirgate?: unknown }).fhirgate === 'cluster';
}
