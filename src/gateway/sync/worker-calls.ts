/**
 * The sync gateway's calls to its worker: the bridge (started on first use), how long each call may
 * block, what the calling thread knows of each source (its time-out and the origins a call reaches),
 * and the same-thread server check (`ERR_DEADLOCK`) before a call that reaches a FHIR server.
 * @module
 */
import { SyncBridge, siblingModuleUrl } from '../../lib/worker-bridge/bridge.js';
import { checkBulkOptions } from '../bulk/index.js';
import type { BulkExportBaseOptions, BulkSettings } from '../bulk/index.js';
import type { SourceOptions } from '../core/source-keys.js';
import { sourceSettings } from '../core/source-settings.js';
import type { CollectedEvent } from './collecting-dispatcher.js';
import { refuseSameThreadServer } from './deadlock.js';
import type { SyncGatewayOptions } from './options.js';

/**
 * How long past its request time-out a blocked call waits for the worker: a request may be followed by
 * a token refresh and one retry (after a 401) or a read of its `Location`, each bounded by the
 * time-out; then a few seconds of margin.
 */
const WAIT_REQUESTS = 3;
const WAIT_MARGIN_MS = 5_000;

/** What the calling thread knows of a source: its time-out and the origins a call to it reaches. */
interface SourceFacts {
  readonly timeoutMs: number;
  readonly origins: readonly string[];
}

/**
 * The blocking calls of one `FHIRGateway` to its worker. A call waits at most three request time-outs
 * plus 5 s (`ERR_TIMEOUT`); the events the worker collected during a call are handed to `emit`.
 */
export class WorkerCalls {
  readonly #options: SyncGatewayOptions;
  readonly #bridge: SyncBridge;
  readonly #sources = new Map<string, SourceFacts>();

  constructor(options: SyncGatewayOptions, emit: (events: CollectedEvent[]) => void) {
    this.#options = options;
    this.#bridge = new SyncBridge({
      workerUrl: siblingModuleUrl(import.meta.url, './gateway-worker'),
      workerData: options.worker,
      name: 'FHIRGateway',
      onExtra: (events) => emit(events as CollectedEvent[]),
      answerErrorCode: 'ERR_FHIR_RESPONSE',
    });
  }

  /** True while the worker runs: started by a first call, not yet closed. */
  get running(): boolean {
    return this.#bridge.started && !this.#bridge.closed;
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#bridge.closed;
  }

  /** The source names, in registration order. */
  get sourceNames(): string[] {
    return [...this.#sources.keys()];
  }

  /**
   * Registers a source: parsed once, on the calling thread (`ERR_CONNECTION_STRING`, `TypeError`); the
   * worker takes the parsed settings and reads key files (`ERR_AUTH_KEY`); its facts are kept only when
   * the worker took it.
   */
  addSource(name: string, connectionString: string, options: SourceOptions | undefined): void {
    this.#bridge.assertOpen();
    const settings = sourceSettings(connectionString, options, this.#options.timeoutMs);
    const { config, timeoutMs } = settings;
    // The worker takes the parsed settings as they are (it reads the key files).
    this.call('addCheckedSource', [name, settings], timeoutMs);
    const tokenUrl = config.auth?.tokenUrl;
    this.#sources.set(name, { timeoutMs, origins: tokenUrl === undefined ? [config.origin] : [config.origin, new URL(tokenUrl).origin] });
  }

  /**
   * A call that reaches a FHIR server: refused at once when that server runs on this thread
   * (`ERR_DEADLOCK`); waits `waitMs`, else what the source's time-out allows.
   */
  io(method: string, args: unknown[], source: string | undefined, waitMs?: number): unknown {
    this.#bridge.assertOpen();
    const facts = this.#facts(source);
    if (facts !== undefined) refuseSameThreadServer('FHIRGateway', facts.origins, this.#options.sameThreadOrigins);
    const timeoutMs = facts?.timeoutMs ?? this.#options.timeoutMs;
    return waitMs === undefined ? this.call(method, args, timeoutMs) : this.#bridge.call(method, args, waitMs);
  }

  /**
   * A blocking call of the worker's `method`, waiting what a request of `timeoutMs` (default: the
   * gateway's) may take.
   */
  call(method: string, args: unknown[], timeoutMs = this.#options.timeoutMs): unknown {
    return this.#bridge.call(method, args, WAIT_REQUESTS * timeoutMs + WAIT_MARGIN_MS);
  }

  /** Sends `method` to the worker without waiting for its answer. */
  send(method: string, args: unknown[]): void {
    this.#bridge.send(method, args);
  }

  /**
   * Checks export options once, at once (no `signal`: a blocking call cannot be aborted): the settings
   * the worker takes as they are, and the longest a step of the export may block (its deadline plus
   * three request time-outs plus 5 s).
   */
  bulkWait(options: BulkExportBaseOptions, method: 'bulkExport' | 'bulkExportAll'): { settings: BulkSettings; waitMs: number } {
    if ((options as { signal?: unknown } | null)?.signal !== undefined) throw new TypeError('options.signal: a blocking FHIRGateway call cannot be aborted; leave the loop instead');
    const settings = checkBulkOptions(options, method);
    return { settings, waitMs: settings.deadlineMs + WAIT_REQUESTS * this.#options.timeoutMs + WAIT_MARGIN_MS };
  }

  /** Closes the worker's gateway, then ends the worker whatever it answered. Idempotent. */
  close(): void {
    if (this.#bridge.closed) return;
    try {
      if (this.#bridge.started) this.#bridge.call('close', [], this.#options.timeoutMs);
    } catch {
      // The worker is ended below whatever its close() answered.
    } finally {
      this.#bridge.close();
    }
  }

  /** The facts of `source`, or of the first source when it is omitted; `undefined` when unknown. */
  #facts(source: string | undefined): SourceFacts | undefined {
    if (source === undefined) return this.#sources.values().next().value;
    return typeof source === 'string' ? this.#sources.get(source) : undefined;
  }
}
