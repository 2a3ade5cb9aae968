/**
 * `serveCluster()`: one app per core on `node:cluster`, behind one shared port.
 * @module
 */
import cluster from 'node:cluster';
import { resolveClusterOptions } from './options.js';
import type { ClusterOptions } from './options.js';
import { ClusterPrimary } from './primary.js';
import { runWorker } from './worker.js';
import type { ClusterWorker, CreateApp } from './worker.js';

/**
 * Serves the app `createApp()` builds on every core. The same script runs in the primary and in each
 * worker (that is how `node:cluster` works): in the primary this forks the workers and resolves to a
 * {@link ClusterPrimary} (`{ workers, port, restart(), close() }`) once all of them serve; in a worker it
 * calls `createApp()`, serves its connections and resolves to `{ role: 'worker', app, server }`. With
 * `reusePort` (by default on Node 22.12+ on Linux where `net.ipv4.tcp_migrate_req` is 1) each worker
 * listens on the port itself; otherwise the primary accepts every connection and hands it to a worker,
 * round robin. The primary's `cluster starting` line says which, and why.
 *
 * The primary re-forks a worker that dies (waiting `restartDelayMs`, doubled per recent death, up to
 * `maxRestartDelayMs`); more than `maxRestarts` start-up failures (died before serving a connection)
 * within `restartWindowMs` is a crash loop: it logs an `ERR_CLUSTER` line with the
 * last reason, drains the others and exits with code 1. SIGTERM or SIGINT drains every worker (each
 * app's `close()`: `readinessDrainMs` with `/health/ready` at 503, then the listener closes and every
 * connection is answered with `Connection: close`) and exits 0. SIGHUP replaces the workers one at a
 * time: a new one serves before an old one leaves the rotation and drains. Bad options throw at once
 * (`TypeError`/`RangeError`).
 *
 * @example
 * ```ts
 * import { createServiceAPI } from 'fhirgate';
 * import { serveCluster } from 'fhirgate/cluster';
 *
 * await serveCluster(() => {
 *   const app = createServiceAPI({ readinessDrainMs: 5000 });
 *   app.get('/hello', () => ({ hello: 'world' }));
 *   return app;
 * }, { workers: 'auto', port: 8000, host: '0.0.0.0' });
 * ```
 */
export function serveCluster(createApp: CreateApp, options: ClusterOptions): Promise<ClusterPrimary | ClusterWorker> {
  if (typeof createApp !== 'function') throw new TypeError('serveCluster expects a function that returns a ServiceAPI');
  const resolved = resolveClusterOptions(options);
  return cluster.isPrimary ? new ClusterPrimary(resolved).start() : runWorker(createApp, resolved);
}
