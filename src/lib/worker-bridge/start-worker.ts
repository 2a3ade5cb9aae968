/**
 * Starts a worker on an entry module that may be TypeScript, through a small bootstrap script. A `.ts`
 * entry (running from sources under tsx, as `npm start` and the newcomer's `node --import tsx` do) needs the
 * TypeScript loader inside the worker too, and an evaluated worker script gets no hooks from the parent's
 * `--import tsx`: so for a `.ts` entry the bootstrap registers tsx's ESM hooks first.
 * When a bridge worker's entry cannot be loaded at all, the bootstrap tells the blocked caller why at once.
 *
 * The bootstrap is a script evaluated in the worker (`eval: true`), not a `data:` module: from Node 22 a
 * worker runs the inherited `--import tsx`, whose hooks rewrote a `data:` bootstrap's dynamic imports and
 * left a source map under the `data:` URL in Node's source map cache, which c8 takes for a file URL
 * (`ERR_INVALID_URL_SCHEME` in its report). An evaluated script goes through no module loader.
 * @module
 */
import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';
import { SIGNAL_COUNTER, SIGNAL_STOPPED, START_FAILURE_ID } from './protocol.js';
import type { BridgeWorkerData } from './protocol.js';

/** The URL of tsx's ESM registration API as seen from here, or null when tsx is not installed. */
function tsxAPIUrl(): string | null {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    return null;
  }
}

/**
 * The bootstrap script's source, CommonJS (hence the async function around its `await`s); `entry` and `tsx`
 * are embedded as JSON strings. When the entry cannot be loaded and the worker serves a bridge, it answers
 * with call id 0 and sets the stopped flag, so that a blocked caller learns why at once instead of waiting
 * for its time-out; any other worker fails with the error.
 */
function bootstrapSource(entry: string, tsx: string | null): string {
  return [
    "const { workerData } = require('node:worker_threads');",
    `const entry = ${JSON.stringify(entry)};`,
    `const tsx = ${JSON.stringify(tsx)};`,
    '(async () => {',
    '  try {',
    '    if (tsx !== null) (await import(tsx)).register();',
    '    await import(entry);',
    '  } catch (err) {',
    '    if (!(workerData?.signal instanceof SharedArrayBuffer)) throw err;',
    '    const { port, signal } = workerData;',
    "    const error = { kind: 'Error', name: String(err?.name ?? 'Error'), message: String(err?.message ?? err) };",
    `    port.postMessage({ id: ${START_FAILURE_ID}, ok: false, error, extra: null });`,
    '    const flags = new Int32Array(signal);',
    `    Atomics.store(flags, ${SIGNAL_STOPPED}, 1);`,
    `    Atomics.add(flags, ${SIGNAL_COUNTER}, 1);`,
    `    Atomics.notify(flags, ${SIGNAL_COUNTER});`,
    '    port.close();',
    '  }',
    '})();',
  ].join('\n');
}

/**
 * Starts a worker on `entry`, a `.js` or `.ts` module URL. For a bridge worker, `options.workerData`
 * is a {@link BridgeWorkerData}.
 */
export function startWorker(entry: URL, options: WorkerOptions): Worker {
  const source = bootstrapSource(entry.href, entry.pathname.endsWith('.ts') ? tsxAPIUrl() : null);
  return new Worker(source, { ...options, eval: true });
}
