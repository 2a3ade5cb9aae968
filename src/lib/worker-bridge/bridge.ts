/**
 * The calling-thread side of the sync bridge: makes an asynchronous object living in a worker thread
 * callable synchronously. A call is posted on a `MessagePort`; the thread then blocks in `Atomics.wait`
 * on a shared counter until the worker bumps it, and takes the answer with `receiveMessageOnPort`.
 * Nothing here knows about FHIR: a call is a method name and structured-clone-safe arguments.
 * @module
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort, Worker } from 'node:worker_threads';
import { FhirgateError } from '../../errors.js';
import type { ErrorCode } from '../../errors.js';
import { numberOption } from '../options.js';
import { SIGNAL_COUNTER, SIGNAL_STOPPED, START_FAILURE_ID } from './protocol.js';
import type { BridgeAnswer, BridgeCall, BridgeWorkerData } from './protocol.js';
import { deserializeError } from './serialize-error.js';
import { startWorker } from './start-worker.js';

/** Options of {@link SyncBridge}. */
export interface SyncBridgeOptions {
  /** The worker's entry module (see {@link siblingModuleUrl}). */
  workerUrl: URL;
  /** Structured-clone-safe start-up data handed to the worker as `data`. Default `null`. */
  workerData?: unknown;
  /** The owner's name, used in error messages (`FHIRGateway`). Default `'SyncBridge'`. */
  name?: string;
  /** Called on the calling thread with the `extra` of every answer, before the call returns or throws. */
  onExtra?: (extra: unknown) => void;
  /** Extra milliseconds allowed to the call that starts the worker (module loading). Default 20 000. */
  startupMs?: number;
  /**
   * The code of the `FhirgateError` a call throws when its answer cannot cross the threads (a value too
   * deeply nested to clone or to rebuild). Default `ERR_HANDLER`; the sync gateway, whose answers come
   * from FHIR servers, says `ERR_FHIR_RESPONSE`.
   */
  answerErrorCode?: ErrorCode;
}

/**
 * The URL of a module next to `importMetaUrl`, with the caller's own extension: `.ts` when running
 * from sources under tsx, `.js` when running from `dist/`. Use it to name a worker entry.
 */
export function siblingModuleUrl(importMetaUrl: string, relativePathWithoutExtension: string): URL {
  return new URL(relativePathWithoutExtension + extname(fileURLToPath(importMetaUrl)), importMetaUrl);
}

/**
 * A worker thread whose methods are called synchronously. The worker starts on the first call, is
 * `unref()`'d (it never keeps the process alive) and serves calls with {@link serveBridge}. A call
 * waits at most its `timeoutMs` and then throws `ERR_TIMEOUT`; a late answer is recognised by its id
 * and dropped.
 */
export class SyncBridge {
  readonly #options: Required<SyncBridgeOptions>;
  #worker: Worker | undefined;
  #port: MessagePort | undefined;
  #signal: Int32Array | undefined;
  #nextId = 0;
  #closed = false;
  #stopReason: string | undefined;

  constructor(options: SyncBridgeOptions) {
    if (!(options.workerUrl instanceof URL)) throw new TypeError('SyncBridge: options.workerUrl must be a URL');
    const startupMs = numberOption(options.startupMs, 'SyncBridge: options.startupMs', 20_000, { min: 0, unit: 'milliseconds' });
    this.#options = {
      workerUrl: options.workerUrl,
      workerData: options.workerData ?? null,
      name: options.name ?? 'SyncBridge',
      onExtra: options.onExtra ?? (() => {}),
      startupMs,
      answerErrorCode: options.answerErrorCode ?? 'ERR_HANDLER',
    };
  }

  /** True once the worker has been started (and until {@link close}). */
  get started(): boolean {
    return this.#worker !== undefined;
  }

  /** True after {@link close}. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Calls `method` with `args` in the worker and blocks until it answers. Returns the value the
   * worker's method resolved to, or throws the error it rejected with (rebuilt by `deserializeError`).
   * Throws `ERR_TIMEOUT` after `timeoutMs` (plus the start-up allowance on the first call),
   * `ERR_CLOSED` after {@link close} or once the worker has stopped; a `TypeError` when the arguments
   * cannot be cloned.
   */
  call(method: string, args: readonly unknown[], timeoutMs: number): unknown {
    const name = this.#options.name;
    this.assertOpen();
    const starting = this.#worker === undefined;
    const { port, signal } = this.#start();
    const id = ++this.#nextId;
    const call: BridgeCall = { id, method, args: [...args] };
    try {
      port.postMessage(call);
    } catch (cause) {
      throw new TypeError(`${name}.${method}(): its arguments cannot be sent to the worker thread (only JSON-like data can)`, { cause });
    }
    const allowedMs = timeoutMs + (starting ? this.#options.startupMs : 0);
    const deadline = performance.now() + allowedMs;
    for (;;) {
      const seen = Atomics.load(signal, SIGNAL_COUNTER);
      const answer = this.#takeAnswer(port, id);
      if (answer?.ok === false && answer.id === START_FAILURE_ID) {
        this.#stopReason = `it failed to start: ${answer.error.message}`;
        throw this.#stoppedError();
      }
      if (answer !== undefined) return this.#settle(answer);
      if (Atomics.load(signal, SIGNAL_STOPPED) !== 0) {
        this.#stopReason = 'it stopped unexpectedly';
        throw this.#stoppedError();
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new FhirgateError(
          'ERR_TIMEOUT',
          `${name}.${method}() got no answer within ${Math.ceil(allowedMs / 1000)} s; the call may still complete in the background`,
        );
      }
      Atomics.wait(signal, SIGNAL_COUNTER, seen, left);
    }
  }

  /**
   * Posts a call without waiting for its answer, which the next {@link call} drops (its `extra` still
   * goes to `onExtra`). Does nothing when the worker was never started, has stopped, or the bridge is
   * closed: there is nobody to tell. For clean-up messages, such as from a `FinalizationRegistry`.
   */
  send(method: string, args: readonly unknown[]): void {
    if (this.#closed || this.#stopReason !== undefined || this.#port === undefined) return;
    this.#port.postMessage({ id: ++this.#nextId, method, args: [...args] } satisfies BridgeCall);
  }

  /** Throws `ERR_CLOSED` after {@link close}, or once the worker has stopped. */
  assertOpen(): void {
    if (this.#closed) throw new FhirgateError('ERR_CLOSED', `${this.#options.name} is closed; create a new one`);
    if (this.#stopReason !== undefined) throw this.#stoppedError();
  }

  /** Stops the worker (without waiting for it) and refuses further calls. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#port?.close();
    void this.#worker?.terminate();
    this.#worker = undefined;
    this.#port = undefined;
    this.#signal = undefined;
  }

  #start(): { port: MessagePort; signal: Int32Array } {
    if (this.#port !== undefined && this.#signal !== undefined) return { port: this.#port, signal: this.#signal };
    const shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
    const { port1, port2 } = new MessageChannel();
    const workerData: BridgeWorkerData = { port: port2, signal: shared, data: this.#options.workerData, answerErrorCode: this.#options.answerErrorCode };
    const worker = startWorker(this.#options.workerUrl, { workerData, transferList: [port2] });
    worker.unref();
    // Without listeners a worker's error would crash the process; record it for the next call instead.
    worker.on('error', (err: Error) => {
      this.#stopReason = `it failed: ${err.message}`;
    });
    worker.on('exit', () => {
      this.#stopReason ??= 'it stopped unexpectedly';
    });
    this.#worker = worker;
    this.#port = port1;
    this.#signal = new Int32Array(shared);
    return { port: port1, signal: this.#signal };
  }

  /**
   * {@link takeAnswer}, where an answer that cannot be rebuilt here (`receiveMessageOnPort` throws a
   * `RangeError` for a value nested deeper than this thread's stack allows) is thrown as this call's
   * failure, with the bridge's `answerErrorCode`.
   */
  #takeAnswer(port: MessagePort, id: number): BridgeAnswer | undefined {
    try {
      return takeAnswer(port, id, this.#options.onExtra);
    } catch (cause) {
      const why = cause instanceof Error ? cause.message : String(cause);
      throw new FhirgateError(this.#options.answerErrorCode, `${this.#options.name}: the answer could not be received from the worker thread (${why})`);
    }
  }

  #settle(answer: BridgeAnswer): unknown {
    this.#options.onExtra(answer.extra);
    if (answer.ok) return answer.value;
    throw deserializeError(answer.error);
  }

  #stoppedError(): FhirgateError {
    return new FhirgateError('ERR_CLOSED', `${this.#options.name}'s worker thread cannot answer: ${this.#stopReason ?? ''}`);
  }
}

/**
 * Takes queued answers until the one for `id` (or a start-up failure). Other answers belong to calls
 * that timed out or were {@link SyncBridge.send | sent}: their values are dropped, their `extra` (what
 * those calls did, e.g. their events) still goes to `onExtra`.
 */
function takeAnswer(port: MessagePort, id: number, onExtra: (extra: unknown) => void): BridgeAnswer | undefined {
  for (;;) {
    const received = receiveMessageOnPort(port);
    if (received === undefined) return undefined;
    const answer = received.message as BridgeAnswer;
    if (answer.id === id || answer.id === START_FAILURE_ID) return answer;
    onExtra(answer.extra);
  }
}
