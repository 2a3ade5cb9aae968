/**
 * The messages of the sync bridge: a call goes from the calling thread to the worker, an answer comes
 * back on the same `MessagePort`, and the worker then bumps a counter in shared memory so that the
 * calling thread, blocked in `Atomics.wait`, wakes up.
 * @module
 */
import type { MessagePort } from 'node:worker_threads';
import type { ErrorCode } from '../../errors.js';
import type { SerializedError } from './serialize-error.js';

/** Slot of the shared `Int32Array` that the worker bumps after every answer; the caller waits on it. */
export const SIGNAL_COUNTER = 0;

/**
 * Slot of the shared `Int32Array` the worker sets to 1 when it stops, so that a blocked caller need
 * not wait for its time-out.
 */
export const SIGNAL_STOPPED = 1;

/**
 * The call id of the answer a worker sends when its entry module failed to load: real calls count
 * from 1.
 */
export const START_FAILURE_ID = 0;

/**
 * One call: a method name and structured-clone-safe arguments. `id` tells its answer apart from the
 * late answer of a call that timed out.
 */
export interface BridgeCall {
  id: number;
  method: string;
  args: unknown[];
}

/**
 * The answer to one call. `extra` is whatever the worker attaches to every answer (the sync gateway
 * sends the events the call emitted).
 */
export type BridgeAnswer =
  | { id: number; ok: true; value: unknown; extra: unknown }
  | { id: number; ok: false; error: SerializedError; extra: unknown };

/**
 * What the calling thread hands a bridge worker in `workerData`: its end of the channel, the shared
 * counter it waits on, and the worker's own start-up data.
 */
export interface BridgeWorkerData {
  port: MessagePort;
  signal: SharedArrayBuffer;
  data: unknown;
  /** The code of the error sent instead of an answer that cannot be cloned. */
  answerErrorCode: ErrorCode;
}
