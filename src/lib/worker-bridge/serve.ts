/**
 * The worker side of the sync bridge: answers the calls a {@link SyncBridge} posts, one answer per
 * call, each followed by a bump of the shared counter that wakes the blocked calling thread.
 * @module
 */
import type { MessagePort } from 'node:worker_threads';
import { FhirgateError } from '../../errors.js';
import type { ErrorCode } from '../../errors.js';
import { SIGNAL_COUNTER, SIGNAL_STOPPED } from './protocol.js';
import type { BridgeAnswer, BridgeCall, BridgeWorkerData } from './protocol.js';
import { serializeError } from './serialize-error.js';

/** What {@link serveBridge} serves. */
export interface BridgeTarget {
  /** Runs one call; may return a value or a Promise. What it throws or rejects with is sent back. */
  call(method: string, args: unknown[]): unknown;
  /** Data attached to every answer, taken right before it is sent (e.g. the events a call emitted). */
  takeExtra?(): unknown;
}

/**
 * Serves `target` on the channel in `workerData`. Calls run concurrently (a caller that timed out
 * may have left one running); every answer carries its call's id.
 */
export function serveBridge(workerData: BridgeWorkerData, target: BridgeTarget): void {
  const { port } = workerData;
  const signal = new Int32Array(workerData.signal);
  process.once('exit', () => {
    Atomics.store(signal, SIGNAL_STOPPED, 1);
    wake(signal);
  });
  port.on('message', (call: BridgeCall) => {
    void answer(port, signal, target, call, workerData.answerErrorCode);
  });
}

async function answer(port: MessagePort, signal: Int32Array, target: BridgeTarget, call: BridgeCall, answerErrorCode: ErrorCode): Promise<void> {
  let reply: BridgeAnswer;
  try {
    const value: unknown = await target.call(call.method, call.args);
    reply = { id: call.id, ok: true, value, extra: target.takeExtra?.() };
  } catch (err) {
    reply = { id: call.id, ok: false, error: serializeError(err), extra: target.takeExtra?.() };
  }
  try {
    port.postMessage(reply);
  } catch (err) {
    // The value could not be cloned: answer with that failure rather than leave the caller waiting.
    const why = err instanceof Error ? err.message : String(err);
    const error = serializeError(new FhirgateError(answerErrorCode, `the answer to ${call.method}() cannot be sent across threads (${why})`));
    port.postMessage({ id: call.id, ok: false, error, extra: reply.extra } satisfies BridgeAnswer);
  }
  wake(signal);
}

function wake(signal: Int32Array): void {
  Atomics.add(signal, SIGNAL_COUNTER, 1);
  Atomics.notify(signal, SIGNAL_COUNTER);
}
