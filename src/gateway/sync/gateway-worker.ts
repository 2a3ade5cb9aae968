/**
 * The worker entry of `FHIRGateway`: hosts one `AsyncFHIRGateway` and serves its methods over the
 * sync bridge. The events a call emits travel back with its answer. Async iterators (`pages`,
 * `searchAll`, `bulkExport`, `bulkExportAll`) are served through cursors: `iterate` opens one,
 * `next` steps it, `return` ends it, `openCursors` counts them.
 * @module
 */
import { workerData } from 'node:worker_threads';
import { AsyncFHIRGateway } from '../async-gateway.js';
import { addCheckedSource } from '../engine-hand-offs.js';
import type { AsyncFHIRGatewayOptions } from '../core/options.js';
import { checkedElsewhere } from '../core/options.js';
import type { SourceSettings } from '../core/source-settings.js';
import { checkedSettings } from '../bulk/options.js';
import type { BulkSettings } from '../bulk/options.js';
import { CollectingDispatcher } from './collecting-dispatcher.js';
import { CursorTable } from './cursors.js';
import type { GatewayWorkerData } from './options.js';
import type { BridgeWorkerData } from '../../lib/worker-bridge/protocol.js';
import { serveBridge } from '../../lib/worker-bridge/serve.js';

/** The methods of `AsyncFHIRGateway` that the calling thread may call. */
const METHODS = new Set(['rotateKey', 'jwks', 'sourceBaseUrl', 'create', 'read', 'update', 'delete', 'search', 'transaction', 'batch', 'close']);

/** The methods returning async iterators, which the calling thread may open a cursor on. */
const ITERATORS = new Set(['pages', 'searchAll', 'bulkExport', 'bulkExportAll']);

const data = workerData as BridgeWorkerData;
const start = data.data as GatewayWorkerData;
const events = new CollectingDispatcher();
// The options were checked on the calling thread; they are not parsed again here.
const gateway = new AsyncFHIRGateway(checkedElsewhere({ ...start.gateway, dispatcher: events, events: true }) as unknown as AsyncFHIRGatewayOptions);
const callable = gateway as unknown as Record<string, (...args: unknown[]) => unknown>;
const cursors = new CursorTable(start.maxOpenCursors);

serveBridge(data, {
  call(method, args) {
    if (method === 'iterate') {
      const [name, params] = args as [string, unknown[]];
      if (!ITERATORS.has(name)) throw new TypeError(`FHIRGateway has no iterator ${JSON.stringify(name)}`);
      // Export settings were checked on the calling thread; they are not parsed again here.
      if (name === 'bulkExport' || name === 'bulkExportAll') params[1] = checkedSettings(params[1] as BulkSettings);
      return cursors.open(callable[name]!(...params) as AsyncIterable<unknown>);
    }
    if (method === 'next') return cursors.next(args[0] as number);
    if (method === 'return') return cursors.return(args[0] as number);
    if (method === 'openCursors') return cursors.size;
    if (method === 'addCheckedSource') return addCheckedSource(gateway, args[0] as string, args[1] as SourceSettings);
    if (!METHODS.has(method)) throw new TypeError(`FHIRGateway has no method ${JSON.stringify(method)}`);
    return callable[method]!(...args);
  },
  takeExtra: () => events.take(),
});
