/**
 * The primary side of `serveCluster`: fork the workers, re-fork one that dies (with a back-off and a
 * cap on crash loops), drain them all on SIGTERM/SIGINT, replace them one at a time on SIGHUP.
 * @module
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { performance } from 'node:perf_hooks';
import { FhirgateError } from '../errors.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { ConnectionRouter } from './connection-router.js';
import { chooseListenMode } from './listen-mode.js';
import type { ListenMode } from './listen-mode.js';
import { isClusterMessage, LISTEN_ENV } from './messages.js';
import type { PrimaryMessage, WorkerMessage } from './messages.js';
import type { ResolvedClusterOptions } from './options.js';
import { StopTogether } from './stop-together.js';

/** One worker as the primary sees it. */
export interface ClusterWorkerInfo {
  /** `worker.id` of `node:cluster`. */
  readonly id: number;
  readonly pid: number;
  /** `starting` until its app listens, `stopping` once it was told to drain or retire. */
  readonly state: 'starting' | 'listening' | 'stopping';
}

interface Slot {
  readonly worker: Worker;
  state: ClusterWorkerInfo['state'];
  /** Forked by a rolling restart; if it dies before it listens, it is not replaced (the old one stays). */
  readonly replacement: boolean;
  /** True once it listens, false if it exits first. */
  readonly ready: Promise<boolean>;
  readonly exited: Promise<void>;
  /** The reason it gave for failing to start, if it did. */
  failure?: string;
  /** Killed because it did not stop within `stopTimeoutMs`. */
  killed?: boolean;
  /** It has served a connection: its death is no start-up failure, however soon it comes. */
  served?: boolean;
}

/**
 * The primary process of a cluster. `serveCluster` makes and starts it; from then on it owns the
 * process's SIGTERM, SIGINT and SIGHUP.
 *
 * @example
 * ```ts
 * const primary = await serveCluster(() => createServiceAPI(), { workers: 4, port: 8000 });
 * if (primary.role === 'primary') console.log(primary.workers.map((w) => w.pid));
 * ```
 */
export class ClusterPrimary {
  readonly role = 'primary';
  /** The port every worker listens on (the one picked at start when the option was 0). */
  port = 0;

  readonly #options: ResolvedClusterOptions;
  readonly #slots = new Set<Slot>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #waiters = new Set<() => void>();
  readonly #router = new ConnectionRouter();
  readonly #metrics = new ClusterMetrics();
  readonly #together: StopTogether;
  /** When recent workers died (for the back-off), and when those that died before serving did (for the crash-loop cap). */
  #deaths: number[] = [];
  #unservedDeaths: number[] = [];
  #closing: Promise<void> | undefined;
  #restarting: Promise<void> | undefined;
  #unclean = false;
  #mode: ListenMode | undefined;

  constructor(options: ResolvedClusterOptions) {
    this.#options = options;
    this.#together = new StopTogether(options.logger);
  }

  /** The workers, in the order they were forked. */
  get workers(): readonly ClusterWorkerInfo[] {
    return [...this.#slots].map((s) => ({ id: s.worker.id, pid: s.worker.process.pid ?? 0, state: s.state }));
  }

  /** Forks the workers and resolves once each of them listens. */
  async start(): Promise<this> {
    const { port, host, workers, logger } = this.#options;
    const mode = (this.#mode = chooseListenMode(this.#options.reusePort));
    try {
      this.port = await this.#router.listen(port, host, mode.reusePort);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new FhirgateError('ERR_CLUSTER', `the cluster cannot listen on ${host}:${port} (${code ?? (error as Error).message})`, { cause: error });
    }
    process.on('SIGTERM', this.#onStop);
    process.on('SIGINT', this.#onStop);
    process.on('SIGHUP', this.#onHangUp);
    logger.info('cluster starting', { pid: process.pid, workers, host, port: this.port, reuse_port: mode.reusePort, reuse_port_reason: mode.reason, tcp_migrate_req: mode.migrateReq ?? null });
    if (mode.reusePort && mode.migrateReq !== 1) {
      logger.warn('reusePort without net.ipv4.tcp_migrate_req=1: a worker listener that closes (rolling restart, shutdown, crash) resets the connections queued on it', { tcp_migrate_req: mode.migrateReq ?? null });
    }
    for (let i = 0; i < workers; i += 1) this.#fork(false);
    await new Promise<void>((resolve) => {
      const check = () => {
        if ([...this.#slots].filter((s) => s.state === 'listening').length < workers) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
    });
    // With reusePort the workers listen on the port themselves: the primary's listener only held the port
    // (and handed over what it accepted meanwhile). With tcp_migrate_req=1 its queue moves to theirs.
    if (mode.reusePort) this.#router.close();
    logger.info('cluster listening', { pid: process.pid, port: this.port, workers: this.workers.map((w) => w.pid) });
    return this;
  }

  /**
   * Replaces the workers one at a time: a new one is forked and listens before an old one is retired
   * (it stops accepting, answers what it accepted, exits). SIGHUP calls it. A call while one runs gets
   * the running one. Rejects with `ERR_CLUSTER` when a new worker dies before it listens (the old ones
   * keep serving) and `ERR_CLOSED` after `close()`.
   */
  restart(): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(new FhirgateError('ERR_CLOSED', 'the cluster is closed'));
    return (this.#restarting ??= this.#roll().finally(() => (this.#restarting = undefined)));
  }

  /**
   * Tells every worker to drain (its app's `close()`: readiness drain, then in-flight requests finish)
   * and resolves once all have exited; a worker still running after `stopTimeoutMs` is killed. No worker
   * is re-forked after this. Gives SIGTERM, SIGINT and SIGHUP back. Idempotent.
   */
  close(): Promise<void> {
    return (this.#closing ??= this.#closeAll());
  }

  readonly #onStop = (signal: NodeJS.Signals): void => {
    this.#options.logger.info('stopping on signal', { signal, pid: process.pid });
    void this.close().then(() => process.exit(this.#unclean ? 1 : 0));
  };

  readonly #onHangUp = (): void => {
    this.#options.logger.info('rolling restart on SIGHUP', { pid: process.pid });
    this.restart().catch((error: FhirgateError) => this.#options.logger.error('rolling restart failed', { code: error.code, error: error.message }));
  };

  async #closeAll(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    if (this.#router.size === 0) this.#router.close();
    this.#options.logger.info('draining workers', { workers: this.workers.map((w) => w.pid) });
    // Workers on the port themselves close their listeners together (none resets a queued connection).
    if (this.#mode?.reusePort === true) this.#together.begin([...this.#slots].filter((s) => s.state === 'listening').map((s) => s.worker));
    await Promise.all([...this.#slots].map((slot) => this.#stop(slot, 'drain')));
    this.#router.close();
    // Only now: a second SIGTERM while the workers drain must not kill the primary (and with it the workers).
    process.off('SIGTERM', this.#onStop);
    process.off('SIGINT', this.#onStop);
    process.off('SIGHUP', this.#onHangUp);
    this.#options.logger.info('cluster closed', { pid: process.pid, clean: !this.#unclean });
  }

  async #roll(): Promise<void> {
    const { logger } = this.#options;
    const old = [...this.#slots].filter((s) => s.state !== 'stopping');
    logger.info('rolling restart', { workers: old.map((s) => s.worker.process.pid) });
    for (const slot of old) {
      if (this.#closing !== undefined) return;
      if (!this.#slots.has(slot)) continue; // it died meanwhile and was replaced already
      const fresh = this.#fork(true);
      if (!(await fresh.ready)) {
        throw new FhirgateError('ERR_CLUSTER', `rolling restart stopped: a new worker exited before it listened (${fresh.failure ?? 'no reason given'}); the old workers keep serving`);
      }
      if (this.#closing !== undefined) return;
      await this.#stop(slot, 'retire');
    }
    logger.info('rolling restart done', { workers: this.workers.map((w) => w.pid) });
  }

  #fork(replacement: boolean): Slot {
    // With reusePort, the worker listens on the primary's port itself.
    const worker = cluster.fork(this.#mode?.reusePort === true ? { [LISTEN_ENV]: String(this.port) } : {});
    let ready!: (listening: boolean) => void;
    let exited!: () => void;
    const slot: Slot = {
      worker,
      state: 'starting',
      replacement,
      ready: new Promise((resolve) => (ready = resolve)),
      exited: new Promise((resolve) => (exited = resolve)),
    };
    this.#slots.add(slot);
    worker.on('message', (message) => {
      if (isClusterMessage<WorkerMessage>(message)) this.#onMessage(slot, message, ready);
    });
    worker.on('error', (error) => this.#options.logger.warn('worker channel error', { pid: worker.process.pid, error: error.message }));
    worker.once('exit', (code, signal) => {
      ready(false);
      exited();
      this.#onExit(slot, code, signal);
    });
    return slot;
  }

  #onMessage(slot: Slot, message: WorkerMessage, ready: (listening: boolean) => void): void {
    const { worker } = slot;
    const say = (answer: PrimaryMessage) => void (worker.isConnected() && worker.send(answer));
    switch (message.event) {
      case 'failed':
      case 'crashed':
        slot.failure = message.error;
        return;
      case 'unroute':
        // The last worker leaves the rotation only when the cluster stops: close the listener first, so
        // that later clients are refused rather than accepted and never answered, and quietly, so that
        // none it queued is reset (what it held meanwhile goes to this worker, before `unrouted`).
        if (this.#closing !== undefined && this.#router.size === 1 && this.#router.has(worker)) {
          void this.#router.closeQuietly(this.#options.logger).then(() => {
            this.#router.remove(worker);
            say({ fhirgate: 'cluster', event: 'unrouted' });
          });
          return;
        }
        this.#router.remove(worker);
        if (this.#closing !== undefined && this.#router.size === 0) this.#router.close();
        return say({ fhirgate: 'cluster', event: 'unrouted' });
      case 'stopped':
        this.#metrics.answer(worker, undefined, message.families);
        return say({ fhirgate: 'cluster', event: 'bye' });
      case 'metrics':
        return this.#metrics.answer(worker, message.id, message.families);
      case 'metrics-request': {
        const serving = [...this.#slots].filter((s) => s.state !== 'starting').map((s) => s.worker);
        void this.#metrics.gather(serving).then((families) => say({ fhirgate: 'cluster', event: 'cluster-metrics', id: message.id, families }));
        return;
      }
      case 'serving':
        slot.served = true;
        return;
      case 'quiet':
        return this.#together.quiet(worker, message.quiet);
      case 'listener-closed':
        return this.#together.closed(worker);
      case 'listening':
        if (slot.state !== 'starting') return;
        slot.state = 'listening';
        this.#router.add(worker);
        this.#options.logger.info('worker listening', { pid: worker.process.pid, port: this.port });
        ready(true);
        for (const wake of [...this.#waiters]) wake();
        return;
      default:
        return;
    }
  }

  #stop(slot: Slot, event: 'drain' | 'retire'): Promise<void> {
    if (slot.state !== 'stopping') {
      // A worker still starting may not listen for messages yet; it has accepted nothing, so SIGTERM will do.
      if (slot.state === 'starting') slot.worker.process.kill('SIGTERM');
      else if (event === 'retire') {
        // Out of the rotation first: the channel is ordered, so `retire` arrives after the last connection.
        this.#router.remove(slot.worker);
        if (slot.worker.isConnected()) slot.worker.send({ fhirgate: 'cluster', event } satisfies PrimaryMessage);
      } else if (slot.worker.isConnected()) slot.worker.send({ fhirgate: 'cluster', event } satisfies PrimaryMessage);
      slot.state = 'stopping';
      const pid = slot.worker.process.pid;
      const kill = setTimeout(() => {
        this.#options.logger.error('worker did not stop in time; killing it', { pid, stop_timeout_ms: this.#options.stopTimeoutMs });
        slot.killed = true;
        slot.worker.process.kill('SIGKILL');
      }, this.#options.stopTimeoutMs);
      void slot.exited.then(() => clearTimeout(kill));
    }
    return slot.exited;
  }

  #onExit(slot: Slot, code: number | null, signal: string | null): void {
    this.#slots.delete(slot);
    this.#router.remove(slot.worker);
    this.#metrics.exited(slot.worker);
    this.#together.gone(slot.worker);
    const { logger, maxRestarts, restartWindowMs, restartDelayMs, maxRestartDelayMs } = this.#options;
    const pid = slot.worker.process.pid;
    if (slot.state === 'stopping') {
      // Unclean: it failed while draining, or had to be killed. (A worker stopped while starting may end by SIGTERM.)
      if (slot.killed === true || (code !== null && code !== 0)) this.#unclean = true;
      logger.info('worker stopped', { pid, code, signal });
      return;
    }
    if (this.#closing !== undefined) return;
    const reason = slot.failure ?? (signal === null ? `exit code ${code}` : `signal ${signal}`);
    const now = performance.now();
    const recent = (times: number[]) => times.filter((t) => now - t < restartWindowMs);
    this.#deaths = [...recent(this.#deaths), now];
    // Only a worker that died before it served a connection is a start-up failure that may loop. One that
    // had served (a request crashed it, however young it was) is restarted however often it happens, with
    // back-off: a client that sends one hostile request a second must not take the cluster down for good.
    const served = slot.served === true;
    if (!served) this.#unservedDeaths = [...recent(this.#unservedDeaths), now];
    // A rolling restart's new worker that never listened is not replaced: the restart stops, the old one stays.
    const loop = this.#unservedDeaths.length > maxRestarts;
    const replace = !loop && !(slot.replacement && slot.state === 'starting');
    const delay = Math.min(restartDelayMs * 2 ** (this.#deaths.length - 1), maxRestartDelayMs);
    const fields = { pid, code, signal, reason, served, ...(replace ? { restart_in_ms: delay } : {}) };
    logger.error('worker died', fields);
    if (loop) return this.#giveUp(reason);
    if (!replace) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (this.#closing === undefined) this.#fork(false);
    }, delay);
    this.#timers.add(timer);
  }

  #giveUp(reason: string): void {
    const { logger, restartWindowMs } = this.#options;
    const error = new FhirgateError('ERR_CLUSTER', `${this.#unservedDeaths.length} workers died before serving a connection within ${restartWindowMs} ms (the last: ${reason}); giving up`);
    logger.error('cluster gave up', { code: error.code, error: error.message });
    void this.close().then(() => process.exit(1));
  }
}
