/**
 * The messages the primary and its workers exchange over the `node:cluster` IPC channel.
 * @module
 */

/**
 * Primary → worker: `drain` (shutdown: readiness drain first), `retire` (rolling restart: no drain), or
 * `bye`, the answer to `stopped`.
 */
export interface PrimaryMessage {
  readonly fhirgate: 'cluster';
  readonly event: 'drain' | 'retire' | 'bye';
}

/**
 * Worker → primary: it listens; it could not start (the reason, for the primary's crash-loop error); or
 * it has stopped and waits for `bye` before it exits. The channel is ordered, so by the time `bye`
 * arrives the primary has handled the worker's closing of the shared listener, and every connection it
 * handed over before that has reached the worker (and was handed back): a worker that exited without
 * reading such a hand-over would leave that connection hanging in the primary.
 */
export type WorkerMessage =
  | { readonly fhirgate: 'cluster'; readonly event: 'listening'; readonly port: number }
  | { readonly fhirgate: 'cluster'; readonly event: 'failed'; readonly error: string }
  | { readonly fhirgate: 'cluster'; readonly event: 'stopped' };

/**
 * Whether `value` is one of fhirgate's cluster messages (other IPC traffic is the user's).
 *
 * @example
 * ```ts
 * worker.on('message', (m) => { if (isClusterMessage<WorkerMessage>(m) && m.event === 'listening') ready(); });
 * ```
 */
export function isClusterMessage<T extends { fhirgate: 'cluster' }>(value: unknown): value is T {
  return typeof value === 'object' && value !== null && (value as { fhirgate?: unknown }).fhirgate === 'cluster';
}

/** The environment variable through which the primary hands its workers the port it resolved. */
export const PORT_VARIABLE = 'FHIRGATE_CLUSTER_PORT';
