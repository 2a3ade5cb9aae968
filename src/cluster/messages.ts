/**
 * The messages the primary and its workers exchange over the `node:cluster` IPC channel.
 * @module
 */

/** Primary → worker: `drain` (shutdown: readiness drain first) or `retire` (rolling restart: no drain). */
export interface StopMessage {
  readonly fhirgate: 'cluster';
  readonly event: 'drain' | 'retire';
}

/** Worker → primary: it listens, or it could not start (the reason, for the primary's crash-loop error). */
export type WorkerMessage =
  | { readonly fhirgate: 'cluster'; readonly event: 'listening'; readonly port: number }
  | { readonly fhirgate: 'cluster'; readonly event: 'failed'; readonly error: string };

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
