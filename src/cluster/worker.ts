/**
 * The worker side of `serveCluster`: build the app, serve the connections the primary hands over, and
 * drain when told to (or on SIGTERM/SIGINT), then exit.
 * @module
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { MetricFamily, ServiceAPI } from '../host/index.js';
import { isClusterMessage, LISTEN_ENV } from './messages.js';
import type { PrimaryMessage, WorkerMessage } from './messages.js';
import type { Logger } from '../host/options.js';
import type { ResolvedClusterOptions } from './options.js';
import { WorkerListener } from './worker-listener.js';

/** What `serveCluster` resolves to in a worker. */
export interface ClusterWorker {
  readonly role: 'worker';
  /** This worker's app. */
  readonly app: ServiceAPI;
  /**
   * Its server. It does not listen itself: it serves the connections handed to it, by the primary or (with
   * `reusePort`) by the worker's own listener on the port.
   */
  readonly server: Server;
}

/** Builds a `ServiceAPI` (or a promise of one); called once in every worker. */
export type CreateApp = () => ServiceAPI | Promise<ServiceAPI>;

const isApp = (value: unknown): value is ServiceAPI =>
  typeof (value as ServiceAPI | null)?.createServer === 'function' && typeof (value as ServiceAPI | null)?.close === 'function';

function tell(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined || !process.connected) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

/** Longer than the primary waits for the workers: past it, this worker answers with its own figures alone. */
const SCRAPE_MS = 5_000;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Runs one worker. A failure to build is logged, reported to the primary and ends the process with exit
 * code 1 (the primary decides whether to try again). So does an uncaught error later (a handler that
 * throws outside a request): its message, never its stack, goes in the log line and to the primary.
 */
export async function runWorker(createApp: CreateApp, options: ResolvedClusterOptions): Promise<ClusterWorker> {
  const { logger } = options;
  let app: ServiceAPI | undefined;
  let server: Server | undefined;
  let unrouted: (() => void) | undefined;
  const scrapes = new Map<number, (families: readonly MetricFamily[]) => void>();
  let scrapeId = 0;
  let listener: WorkerListener | undefined;
  /** A rolling restart's `retire`: this worker stops alone (the others' listeners take its queue). */
  let retiring = false;
  const stop = (readinessDrainMs?: number) => {
    // Nothing was handed over yet: there is nothing to drain.
    if (app === undefined || server === undefined) process.exit(0);
    app.close(readinessDrainMs === undefined ? {} : { readinessDrainMs }).then(
      () => (process.connected ? void tell({ fhirgate: 'cluster', event: 'stopped', families: app!.metricFamilies() }) : process.exit(0)),
      (error: unknown) => exitWith(logger, 'worker close failed', error),
    );
  };
  process.on('message', (message: unknown, socket?: Socket) => {
    if (!isClusterMessage<PrimaryMessage>(message)) return;
    switch (message.event) {
      case 'connection':
        // The primary hands connections only to a worker that said `listening`, so `server` is set.
        if (socket !== undefined) server?.emit('connection', socket);
        return;
      case 'unrouted':
        return unrouted?.();
      case 'metrics':
        return void tell({ fhirgate: 'cluster', event: 'metrics', id: message.id, families: app?.metricFamilies() ?? [] });
      case 'cluster-metrics':
        return scrapes.get(message.id)?.(message.families as MetricFamily[]);
      case 'bye':
        return process.exit(0);
      case 'drain':
        return stop();
      case 'retire':
        retiring = true;
        return stop(0);
      case 'close-listener':
      case 'release':
        return listener?.step(message.event);
      default:
        return;
    }
  });
  // A signal sent to the whole process group (Ctrl-C, `kill -- -pgid`) reaches workers too: drain like
  // the primary asks. SIGHUP is the primary's cue for a rolling restart, not the workers'.
  process.on('SIGTERM', () => stop());
  process.on('SIGINT', () => stop());
  process.on('SIGHUP', () => {});
  process.on('uncaughtException', (error) => crash(logger, error));
  process.on('unhandledRejection', (error) => crash(logger, error));
  try {
    const built: unknown = await createApp();
    if (!isApp(built)) throw new TypeError('createApp() must return or resolve to a ServiceAPI (from createServiceAPI())');
    app = built;
    const own = app;
    // A scrape of /metrics here shows the whole cluster: the primary gathers every worker's families.
    own.collectMetricsWith(() => new Promise((resolve) => {
      const id = ++scrapeId;
      const done = (families: readonly MetricFamily[]) => {
        scrapes.delete(id);
        clearTimeout(timer);
        resolve(families);
      };
      const timer = setTimeout(() => done(own.metricFamilies()), SCRAPE_MS);
      scrapes.set(id, done);
      void tell({ fhirgate: 'cluster', event: 'metrics-request', id });
    }));
    server = app.createServer({
      stopAccepting: () => new Promise<void>((resolve) => {
        // Listening on the port itself: alone when retired (or cut off from the primary), else with the others.
        if (listener !== undefined) {
          return void (retiring || !process.connected ? listener.stopAlone() : listener.stopTogether(tell, logger)).then(resolve);
        }
        // Leaving the rotation: once the primary answers, every connection it handed over has arrived.
        unrouted = resolve;
        if (!process.connected) resolve();
        else void tell({ fhirgate: 'cluster', event: 'unroute' });
      }),
    });
    const ownPort = process.env[LISTEN_ENV];
    if (ownPort !== undefined) listener = await WorkerListener.listen(server, Number(ownPort), options.host);
    // Its first connection makes this worker one that served: its death is then no start-up failure.
    server.once('connection', () => void tell({ fhirgate: 'cluster', event: 'serving' }));
    await tell({ fhirgate: 'cluster', event: 'listening' });
    return { role: 'worker', app, server };
  } catch (error) {
    await tell({ fhirgate: 'cluster', event: 'failed', error: messageOf(error) });
    return exitWith(logger, 'worker failed to start', error);
  }
}

function exitWith(logger: Logger, what: string, error: unknown): never {
  logger.error(what, { pid: process.pid, error: messageOf(error) });
  process.exit(1);
}

/** An uncaught error: the primary learns why (for its `worker died` line), then the process ends. */
function crash(logger: Logger, error: unknown): void {
  logger.error('worker crashed', { pid: process.pid, error: messageOf(error), ...(error instanceof Error ? { error_name: error.name } : {}) });
  void tell({ fhirgate: 'cluster', event: 'crashed', error: messageOf(error) }).finally(() => process.exit(1));
}
