/**
 * The worker entry of `FHIRGateway`: hosts one `AsyncFHIRGateway` and serves its methods over the
 * sync bridge. The events a call emits travel back with its answer.
 * @module
 */
import { workerData } from 'node:worker_threads';
import { AsyncFHIRGateway } from '../async-gateway.js';
import type { AsyncFHIRGatewayOptions } from '../options.js';
import { CollectingDispatcher } from './collecting-dispatcher.js';
import type { BridgeWorkerData } from './protocol.js';
import { serveBridge } from './serve.js';

/** The methods of `AsyncFHIRGateway` that the calling thread may call. */
const METHODS = new Set(['addSource', 'sourceBaseUrl', 'create', 'read', 'update', 'delete', 'search', 'close']);

const data = workerData as BridgeWorkerData;
const events = new CollectingDispatcher();
const gateway = new AsyncFHIRGateway({ ...(data.data as AsyncFHIRGatewayOptions), dispatcher: events, events: true });
const callable = gateway as unknown as Record<string, (...args: unknown[]) => unknown>;

serveBridge(data, {
  call(method, args) {
    if (!METHODS.has(method)) throw new TypeError(`FHIRGateway has no method ${JSON.stringify(method)}`);
    return callable[method]!(...args);
  },
  takeExtra: () => events.take(),
});
