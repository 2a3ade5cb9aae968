/**
 * The worker side of `serveCluster`: build the app, listen on the shared port, tell the primary, and
 * drain when told to (or on SIGTERM/SIGINT), then exit.
 * @module
 */
import type { Server } from 'node:http';
import type { ServiceAPI } from '../host/index.js';
import { isClusterMessage, PORT_VARIABLE } from './messages.js';
import type { PrimaryMessage, WorkerMessage } from './messages.js';
import type { Logger } from '../host/options.js';
import type { ResolvedClusterOptions } from './options.js';

/** What `serveCluster` resolves to in a worker. */
export interface ClusterWorker {
  readonly role: 'worker';
  /** This worker's app. */
  readonly app: ServiceAPI;
  /** Its server, listening on the shared port. */
  readonly server: Server;
}

/** Builds a `ServiceAPI` (or a promise of one); called once in every worker. */
export type CreateApp = () => ServiceAPI | Promise<ServiceAPI>;

const isApp = (value: unknown): value is ServiceAPI =>
  typeof (value as ServiceAPI | null)?.listen === 'function' && typeof (value as ServiceAPI | null)?.close === 'function';

function tell(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined || !process.connected) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

/**
 * Runs one worker. A failure to build or listen is logged, reported to the primary and ends the
 * process with exit code 1 (the primary decides whether to try again).
 *
 * @example
 * ```ts
 * if (cluster.isWorker) await runWorker(() => createServiceAPI(), resolveClusterOptions({ port: 8000 }));
 * ```
 */
export async function runWorker(createApp: CreateApp, options: ResolvedClusterOptions): Promise<ClusterWorker> {
  const { logger } = options;
  let app: ServiceAPI | undefined;
  let listening = false;
  const stop = (readinessDrainMs?: number) => {
    // Nothing was accepted yet: there is nothing to drain.
    if (app === undefined || !listening) process.exit(0);
    app.close(readinessDrainMs === undefined ? {} : { readinessDrainMs }).then(
      () => (process.connected ? void tell({ fhirgate: 'cluster', event: 'stopped' }) : process.exit(0)),
      (error: unknown) => exitWith(logger, 'worker close failed', error),
    );
  };
  process.on('message', (message) => {
    if (!isClusterMessage<PrimaryMessage>(message)) return;
    if (message.event === 'bye') process.exit(0);
    stop(message.event === 'retire' ? 0 : undefined);
  });
  // A signal sent to the whole process group (Ctrl-C, `kill -- -pgid`) reaches workers too: drain like
  // the primary asks. SIGHUP is the primary's cue for a rolling restart, not the workers'.
  process.on('SIGTERM', () => stop());
  process.on('SIGINT', () => stop());
  process.on('SIGHUP', () => {});
  try {
    const built: unknown = await createApp();
    if (!isApp(built)) throw new TypeError('createApp() must return or resolve to a ServiceAPI (from createServiceAPI())');
    app = built;
    const port = Number(process.env[PORT_VARIABLE] ?? options.port);
    const server = await app.listen(port, options.host);
    listening = true;
    const address = server.address();
    await tell({ fhirgate: 'cluster', event: 'listening', port: typeof address === 'object' && address !== null ? address.port : port });
    return { role: 'worker', app, server };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await tell({ fhirgate: 'cluster', event: 'failed', error: message });
    return exitWith(logger, 'worker failed to start', error);
  }
}

function exitWith(logger: Logger, what: string, error: unknown): never {
  logger.error(what, { pid: process.pid, error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
