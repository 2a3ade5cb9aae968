/**
 * Starts a worker on an entry module that may be TypeScript, through a small bootstrap module.
 * A `.ts` entry (running from sources under tsx, as the tests and `npm start` do) needs the TypeScript
 * loader inside the worker too: a worker runs the inherited `--import tsx`, but on Node 20 tsx only
 * registers its hooks on the main thread. So when Node refuses the `.ts` extension, the bootstrap
 * registers tsx's ESM hooks in the worker and imports the entry again. When a bridge worker's entry
 * cannot be loaded at all, the bootstrap tells the blocked caller why at once.
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
 * The bootstrap module's source; `entry` and `tsx` are embedded as JSON strings. When the entry cannot
 * be loaded and the worker serves a bridge, it answers with call id 0 and sets the stopped flag, so
 * that a blocked caller learns why at once instead of waiting for its time-out.
 */
function bootstrapSource(entry: string, tsx: string | null): string {
  return [
    "import { workerData } from 'node:worker_threads';",
    `const entry = ${JSON.stringify(entry)};`,
    `const tsx = ${JSON.stringify(tsx)};`,
    'try {',
    '  try {',
    '    await import(entry);',
    '  } catch (err) {',
    "    if (tsx === null || err?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;",
    '    (await import(tsx)).register();',
    // A failed import is cached under its URL: import the same file under a fresh one.
    "    await import(entry + '?tsx');",
    '  }',
    '} catch (err) {',
    '  if (!(workerData?.signal instanceof SharedArrayBuffer)) throw err;',
    '  const { port, signal } = workerData;',
    "  const error = { kind: 'Error', name: String(err?.name ?? 'Error'), message: String(err?.message ?? err) };",
    `  port.postMessage({ id: ${START_FAILURE_ID}, ok: false, error, extra: null });`,
    '  const flags = new Int32Array(signal);',
    `  Atomics.store(flags, ${SIGNAL_STOPPED}, 1);`,
    `  Atomics.add(flags, ${SIGNAL_COUNTER}, 1);`,
    `  Atomics.notify(flags, ${SIGNAL_COUNTER});`,
    '  port.close();',
    '}',
  ].join('\n');
}

/**
 * Starts a worker on `entry`, a `.js` or `.ts` module URL. For a bridge worker, `options.workerData`
 * is a {@link BridgeWorkerData}.
 */
export function startWorker(entry: URL, options: WorkerOptions): Worker {
  const source = bootstrapSource(entry.href, entry.pathname.endsWith('.ts') ? tsxAPIUrl() : null);
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), options);
}
