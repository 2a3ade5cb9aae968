/**
 * `fhirgate/cluster`: every core of one machine behind one port.
 * @module
 */
export { serveCluster } from './serve-cluster.js';
export { ClusterPrimary } from './primary.js';
export type { ClusterWorkerInfo } from './primary.js';
export type { ClusterOptions } from './options.js';
export type { ClusterWorker, CreateApp } from './worker.js';
